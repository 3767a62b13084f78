/**
 * What each request asks for and how its workflow goes, for getApprovalDetails and getRequestItems.
 * Derived from the approval's own row with a generator seeded by the request id, so that the same
 * request always has the same items, description and actions, in the demo data, a bulk data set
 * or a file made by an earlier version alike, with nothing more stored. The first item is the one
 * the request is named for (its requester and entitlement), so the two commands agree with
 * findApprovals. What a request says never depends on its state: the generator draws the same
 * values, in the same order, whether the step is pending or done (a draw made only for completed
 * rows shifted every later one, and an approval read differently once decided), and the state is
 * laid over that content afterwards (progressOf), from the decision made when there is one.
 */

import { ENTITLEMENTS, seededRandom } from './seeded.js';

/** The columns of an approval these commands read. */
export interface ApprovalRowForRequest {
  request_id: number;
  request_name: string;
  work_item_name: string;
  requester_id: string;
  requester_first_name: string;
  requester_last_name: string;
  business_source: string;
  entitlement_name: string;
  entitlement_type: string;
  state: 'pending' | 'completed';
}

export interface RequestItemSketch {
  ItemId: number;
  TypeDescription: string;
  Operation: string;
  EntitlementType: string;
  EntitlementName: string;
  BusinessSource: string;
  State: string;
  ItemDescription: string;
  DerivedType: string;
  IsChangeToApprove: boolean;
  UserName: string;
  UserId: string;
  AccountName: string;
  ApplicationRoleName: string;
  UserGroupName: string;
  GlobalRoleName: string;
}

export interface RequestSketch {
  description: string;
  notes: string;
  hasAttachments: boolean;
  emailApprovalEnabled: boolean;
  lineItemApprovalEnabled: boolean;
  reassignDisabled: boolean;
  /** The transitions out of the step, as its workflow names them. */
  actions: string[];
  /** What a step completed without a decision of this service's (the demo's completed rows) ended with: one of the actions. */
  seededOutcome: string;
  /** The items, as their request asks for them; their State is the request's progress (progressOf). */
  items: Array<Omit<RequestItemSketch, 'State'>>;
}

/** Where a request stands: laid over what it says, which does not change with it. */
export interface RequestProgress {
  /** getApprovalDetails' WorkItemState: Available while pending, then the action it ended with. */
  workItemState: string;
  /** getRequestItems' RequestStatus. */
  status: string;
  /** Each item's State. */
  itemState: string;
}

/** Names a careless renderer would turn into pings, links or markup; used by demo.ts for request names too. */
export const HOSTILE_TEXT = [
  '<!here> please approve *now*',
  'See https://evil.example/login?next=1 & <b>sign</b>',
  '`rm -rf` _soon_ ~maybe~',
];

const OTHER_USERS: ReadonlyArray<{ name: string; id: string }> = [
  { name: 'Wayne, Bruce', id: 'bruce.wayne' },
  { name: 'Kent, Clark', id: 'clark.kent' },
  { name: 'Prince, Diana', id: 'diana.prince' },
  { name: 'Allen, Barry', id: 'barry.allen' },
  { name: 'Lane, Lois', id: 'lois.lane' },
  { name: 'Gordon, Barbara', id: 'barbara.gordon' },
];

const DESCRIPTIONS = [
  '',
  'Needs access for the quarter-end close.',
  'Joining the platform team on Monday; same access as the rest of the team.',
  'Temporary access while covering for a colleague on leave.\nPlease remove it after the 30th.',
  'Moving from Sales to Finance: old access goes, new access comes.',
  'Audit finding 2026-114: access no longer needed.',
];

const NOTES = [
  '',
  '',
  'Approved by the data owner by email on the 12th.',
  'Ticket INC-20931.',
  'Manager is out until Friday; ask the deputy.',
];

/** Each workflow's transitions out of a step: never only Accepted/Rejected. */
function workflowActions(stepName: string, rand: () => number): string[] {
  if (stepName === 'Security Review') return ['Approved', 'Rejected', 'Needs Info'];
  // An activity some workflows do not let be cancelled: then it lists one action.
  if (stepName.endsWith('Activity')) return rand() < 0.35 ? ['Completed'] : ['Completed', 'Canceled'];
  return ['Accepted', 'Rejected'];
}

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

/** "bruce.wayne" → "bwayne": how an account is named in the applications. */
function accountName(userId: string): string {
  const [first = '', last = ''] = userId.split('.');
  return `${first.charAt(0)}${last}`.replace(/[^a-z0-9]/g, '') || userId;
}

/** 1 to 30 items: mostly a few, now and then many. */
function itemCount(rand: () => number): number {
  const r = rand();
  if (r < 0.4) return 1 + Math.floor(rand() * 3);
  if (r < 0.75) return 4 + Math.floor(rand() * 7);
  return 11 + Math.floor(rand() * 20);
}

/**
 * Where the request stands: pending, or completed with `decided` (the action of this service's own
 * decision) or, for a step completed without one, the outcome its seed gives. The workflow's first
 * action carries the request on; any other ends it, named as the action.
 */
export function progressOf(request: RequestSketch, state: 'pending' | 'completed', decided: string | undefined): RequestProgress {
  if (state === 'pending') return { workItemState: 'Available', status: 'Approvals Phase', itemState: 'Pending Approval' };
  const outcome = decided ?? request.seededOutcome;
  if (outcome === request.actions[0]) return { workItemState: outcome, status: 'Fulfillment Phase', itemState: 'Completed' };
  return { workItemState: outcome, status: outcome, itemState: outcome };
}

export function sketchRequest(row: Omit<ApprovalRowForRequest, 'state'>, hostile: boolean): RequestSketch {
  const rand = seededRandom(0x5eed ^ Math.imul(row.request_id, 2654435761));
  const actions = workflowActions(row.work_item_name, rand);
  const lineItemApprovalEnabled = rand() < 0.3;
  const requester = {
    name: `${row.requester_last_name}, ${row.requester_first_name}`,
    id: row.requester_id,
  };
  const count = itemCount(rand);
  const items: Array<Omit<RequestItemSketch, 'State'>> = [];
  for (let i = 0; i < count; i++) {
    const first = i === 0;
    const person = first || rand() < 0.4 ? requester : pick(rand, OTHER_USERS);
    const entitlement = first
      ? { name: row.entitlement_name, type: row.entitlement_type, source: row.business_source }
      : pick(rand, ENTITLEMENTS);
    const operation = first ? 'Add' : pick(rand, ['Add', 'Add', 'Remove', 'Create', 'Modify'] as const);
    const account = accountName(person.id);
    const derived = !first && rand() < 0.15;
    const base = {
      ItemId: row.request_id * 100 + i + 1,
      DerivedType: derived ? 'Indirect' : 'Direct',
      // With line-item approval each item is decided on its own; derived ones follow from the others.
      IsChangeToApprove: !(derived && lineItemApprovalEnabled),
      UserName: person.name,
      UserId: person.id,
      AccountName: account,
      ApplicationRoleName: '',
      UserGroupName: '',
      GlobalRoleName: '',
      BusinessSource: entitlement.source,
      ItemDescription: hostile && i === 0 ? (HOSTILE_TEXT[row.request_id % HOSTILE_TEXT.length] as string) : '',
    };
    if (operation === 'Create') {
      items.push({
        ...base,
        TypeDescription: 'Create account',
        Operation: 'Create',
        EntitlementType: 'account',
        EntitlementName: account,
        ItemDescription: base.ItemDescription || `New ${entitlement.source} account for ${person.name}`,
      });
    } else if (operation === 'Modify') {
      items.push({
        ...base,
        TypeDescription: 'Modify account',
        Operation: 'Modify',
        EntitlementType: 'account',
        EntitlementName: account,
        ItemDescription:
          base.ItemDescription ||
          pick(rand, ['Change department to Finance', 'Change manager to Hopper, Grace', 'Extend expiry by 90 days']),
      });
    } else {
      const add = operation === 'Add';
      items.push({
        ...base,
        TypeDescription: `${add ? 'Add user to' : 'Remove user from'} ${entitlement.type}`,
        Operation: operation,
        EntitlementType: entitlement.type,
        EntitlementName: entitlement.name,
        ApplicationRoleName: entitlement.type === 'role' ? entitlement.name : '',
        UserGroupName: entitlement.type === 'group' ? entitlement.name : '',
      });
    }
  }
  const description = hostile ? (HOSTILE_TEXT[0] as string) : pick(rand, DESCRIPTIONS);
  const notes = hostile ? (HOSTILE_TEXT[1] as string) : pick(rand, NOTES);
  const hasAttachments = rand() < 0.1;
  const emailApprovalEnabled = rand() < 0.5;
  const reassignDisabled = rand() < 0.2;
  // Drawn for every row, pending or not, and last: a pending request reads as it did in earlier versions.
  const endsOtherwise = rand() < 0.2;
  const seededOutcome = (endsOtherwise && actions.length > 1 ? actions[1] : actions[0]) as string;
  return {
    description,
    notes,
    hasAttachments,
    emailApprovalEnabled,
    lineItemApprovalEnabled,
    reassignDisabled,
    actions,
    seededOutcome,
    items,
  };
}
