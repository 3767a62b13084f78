export { parseServiceTimestamp } from '../time/timestamps.js';
export * from './client.js';
export type { DecisionAnswer, DecisionCall, DecisionValues } from './decision-call.js';
export * from './errors.js';
export * from './query.js';
export type {
  Approval,
  ApprovalDetails,
  ApprovalsPage,
  CollectionResult,
  CollectionRun,
  RequestItem,
  RequestItemsPage,
  RunState,
  RunStatus,
} from './schemas.js';
export { MAX_ITEMS_KEPT } from './schemas.js';
