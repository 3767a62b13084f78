export * from './client.js';
export * from './errors.js';
export * from './query.js';
export type { Approval, ApprovalsPage, CollectionResult, CollectionRun, RunState, RunStatus } from './schemas.js';
export { parseServiceTimestamp } from './timestamps.js';
