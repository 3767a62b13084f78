/** The store's interface, implemented alike by SQLite (one instance) and PostgreSQL (several). */

import type { CollectQuery, Principal, RunState, ServiceCommandName, TokenSource } from '../domain/index.js';
import type { Secret } from '../runtime/secret.js';

/** Which days a reminder fires on. */
export type RemindDays = 'daily' | 'weekdays';

// The words shared with the service client, kept below both; said here too for the store's users.
export { type Principal, SERVICE_COMMANDS, type ServiceCommandName, type TokenSource } from '../domain/index.js';

/** Whose links to forget: a user in one workspace (teamId set), or in every workspace (teamId left out). */
export interface TokenHolder {
  userId: string;
  teamId?: string | undefined;
}

export interface LinkedToken {
  token: Secret;
  linkedAt: Date;
  source: TokenSource;
}

/**
 * Who a Slack user is in the service, for the trusted mode: the name they sign in with (sent as
 * auth-user-id) and their authentication source. An identifier, never a credential.
 */
export interface ServiceIdentity {
  serviceUser: string;
  authsource: string | undefined;
}

/** How an identity was linked: the user proved it by signing in once, or an admin mapped it. */
export type IdentitySource = 'login' | 'admin';

export interface IdentityLink extends Principal, ServiceIdentity {
  source: IdentitySource;
  linkedAt: Date;
  lastUsedAt: Date | undefined;
  /**
   * How the last call noted went: it worked; the service refused to act for the user (it does not
   * know them); or it does not let them run one command (`notPermitted`), which leaves the link
   * working for the others.
   */
  lastOutcome: 'ok' | 'rejected' | 'not-permitted' | undefined;
  /** With 'not-permitted': the command the service does not let the user run. */
  notPermitted?: string | undefined;
}

/** What recordIdentityOutcome notes: the outcomes of IdentityLink.lastOutcome, a refused command named. */
export type IdentityOutcome = 'ok' | 'rejected' | { notPermitted: string };

export interface LinkSummary extends Principal {
  command: ServiceCommandName;
  linkedAt: Date;
  source: TokenSource;
  lastUsedAt: Date | undefined;
  lastOutcome: 'ok' | 'rejected' | undefined;
  /** The service account a sign-in named; undefined for a token pasted or set by an admin, which does not say whose it is. */
  account?: ServiceIdentity | undefined;
}

export interface PendingConfirmation {
  id: string;
  teamId: string;
  channelId: string;
  userId: string;
  /** JSON of what the confirmation will run, re-validated when claimed. */
  payload: string;
  createdAt: Date;
  expiresAt: Date;
}

export type ClaimResult =
  | { status: 'claimed'; confirmation: PendingConfirmation }
  | { status: 'not-found' }
  | { status: 'not-yours'; ownerId: string }
  | { status: 'already-used' }
  | { status: 'expired' };

/** A user's digest reminder, and where the scheduler stands with it. */
export interface Reminder extends Principal {
  days: RemindDays;
  /** Minutes after local midnight. */
  minuteOfDay: number;
  timeZone: string;
  /** The occurrence it waits for, as the user chose it (09:00 their time). */
  nextAt: Date;
  /** When a scheduler takes it up: nextAt plus the user's spread, or later after a failed try. */
  dueAt: Date;
  /** When the user was told their token no longer works: silence until they link again. */
  pausedAt: Date | undefined;
  /** The occurrence whose digest has been handed to Slack: a second taker must not send it again. */
  sentFor: Date | undefined;
}

export type NewReminder = Omit<Reminder, 'pausedAt' | 'sentFor'>;

export interface ReminderRelease {
  nextAt: Date;
  dueAt: Date;
  timeZone: string;
  /** A Date pauses, null resumes, undefined leaves it as it is. */
  pausedAt?: Date | null;
}

/** Quiet hours in the approver's own zone: minutes after midnight; start > end wraps midnight. */
export interface QuietMinutes {
  startMinute: number;
  endMinute: number;
}

/** An approver's arrival messages: on (the default) or off, and their quiet hours. */
export interface NotifySetting {
  enabled: boolean;
  quiet: QuietMinutes | undefined;
}

/** A change to it: switching on makes the next check prime; `quiet: null` takes quiet hours away. */
export type NotifySettingChange = { enabled: boolean } | { quiet: QuietMinutes | null };

/** One approver whose pending list is checked for arrivals, as a claim leased it. */
export interface ArrivalWatch extends Principal {
  quiet: QuietMinutes | undefined;
  /** The next check records what is there and announces nothing (first check, relinked after a pause, switched on). */
  prime: boolean;
  /** When this check was due: how late it is taken says how long a cycle takes. */
  dueAt: Date;
  /** When the next check is due (the claim moved it on). */
  nextAt: Date;
}

/** What a DM says of one approval, as the service wrote it. */
export interface KeptSummary {
  approvalId: string;
  workItemName: string;
  requestName: string;
  requestedBy: string;
  dueDate: string;
}

export interface ArrivalDecided {
  action: string;
  /** A Slack user id. */
  by: string;
  at: Date;
}

/**
 * An approval remembered on an approver's pending list. primed: there when the list was first read
 * (never announced); held: arrived in quiet hours, to be sent when they end; announced: recorded for
 * a DM (messageId), before it was posted.
 */
export interface KeptArrival {
  approvalId: string;
  status: 'primed' | 'held' | 'announced';
  summary: KeptSummary;
  /** The decision buttons its DM offers ([] = Details only). */
  actions: string[];
  seenAt: Date;
  /** Seen gone from the list at a check. */
  goneAt: Date | undefined;
  /** Decided from Slack, as the decision's hold says. */
  decided: ArrivalDecided | undefined;
  messageId: string | undefined;
}

/** A DM listing arrivals: its entries are the approvals it lists, in order. */
export interface KeptArrivalMessage {
  id: string;
  teamId: string;
  userId: string;
  /** Undefined until Slack took it (or when it never did). */
  channel: string | undefined;
  ts: string | undefined;
  more: number;
  afterQuiet: boolean;
  at: Date;
  entries: KeptArrival[];
}

/** What one check changed, written at once, and only while its watch is still leased to the checker. */
export interface ArrivalCheckChanges {
  /** The check primed: the flag is cleared. */
  primed: boolean;
  /** Approvals recorded without a message: there at priming, or held for quiet hours. */
  add: Array<{ status: 'primed' | 'held'; summary: KeptSummary }>;
  /** Remembered as gone, and on the list again. */
  back: string[];
  /** Gone from the list, with the decision from Slack that took it when there was one. */
  gone: Array<{ approvalId: string; decided: ArrivalDecided | undefined }>;
  /** New (or held, now sent) approvals announced in one message, in its order. */
  announce?: {
    messageId: string;
    teamId: string;
    approvals: Array<{ summary: KeptSummary; actions: string[] }>;
    listed: number;
    afterQuiet: boolean;
  };
}

/** The database could not be reached (or went away mid-statement): worth trying again shortly. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`the database is not reachable: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'StoreUnavailableError';
  }
}

/**
 * How an attempt ended, as its last step says. 'unanswered': a confirmation was asked for, and
 * neither Run nor Cancel has been clicked; 'confirmed': Run was clicked and nothing followed (yet);
 * 'sent': the service was asked and no answer was recorded (the process stopped meanwhile, or it
 * is under way).
 */
export type CollectOutcome = 'started' | 'nothing-matched' | 'refused' | 'failed' | 'cancelled' | 'unanswered' | 'confirmed' | 'sent';

/** A run as the audit trail and the live message know it. */
export interface WatchedRun {
  runId: string;
  collector: string | undefined;
  state: RunState | undefined;
  /** The service's own times (wall clock, no zone), when it gave them. */
  startTime?: string | undefined;
  completedTime?: string | undefined;
  /** When this app first saw the run ended (ms since the epoch). */
  endedAt?: number;
}

/** Why a collection was refused, cancelled or failed: fields, not a sentence, so that every reader words it its own way. */
export type AttemptReason =
  | { kind: 'channel'; allowedChannels: string[] }
  | { kind: 'user' }
  | { kind: 'force' }
  | { kind: 'not-linked' }
  /**
   * `offered`: the asker was offered "Start anyway" and did not take it (taking it is a step of its own).
   * `collector`: the collector held, where it was part of a bigger target (reasons recorded before it was have none).
   */
  | { kind: 'cooldown'; userId: string; at: Date; offered: boolean; collector?: string | undefined }
  /** The service's own error, by kind (ServiceError kinds), with what it said. */
  | { kind: 'service'; error: string; message: string }
  | { kind: 'internal' }
  | { kind: 'cancelled' }
  | { kind: 'not-again' }
  /** What a row carried over from before the structured trail held and nothing here recognises: as it was written. */
  | { kind: 'other'; text: string };

/** The steps an audited action goes through; each is one row of the trail, appended, never changed. */
export type AuditStep = 'asked' | 'refused' | 'confirmed' | 'cancelled' | 'sent' | 'resent' | 'answered' | 'failed' | 'reconciled';

/** One step of a collection attempt, with the fields that step has. */
export type CollectStep =
  /** A confirmation (Run / Cancel, or "Start anyway") was offered. */
  | { step: 'asked' }
  | { step: 'refused'; reason: AttemptReason }
  | { step: 'confirmed' }
  | { step: 'cancelled'; reason: AttemptReason }
  | { step: 'sent' }
  /** The service answered the start: the runs it began (none: nothing matched), and the collectors left out or run again within the cooldown. */
  | { step: 'answered'; runs: WatchedRun[]; leftOut: string[]; ranAgain: string[] }
  /** `maybeStarted`: the request may have reached the service, so runs may have begun. */
  | { step: 'failed'; reason: AttemptReason; maybeStarted: boolean };

/** A step of a collection attempt as it is recorded: who, where, what, and the step. Never a token. */
export type CollectEvent = CollectStep & {
  /** The attempt it belongs to: every step of one attempt has its id. */
  attemptId: string;
  at: Date;
  teamId: string;
  channelId: string;
  userId: string;
  query: CollectQuery;
};

/** One attempt to start a collection, read back from its steps: who, where, what, and how it ended. */
export interface CollectAttempt {
  id: string;
  /** When it began: the question asked, or the start typed. */
  at: Date;
  /** Its latest step. */
  lastAt: Date;
  teamId: string;
  channelId: string;
  userId: string;
  query: CollectQuery;
  outcome: CollectOutcome;
  /** Why it was refused, cancelled or failed. */
  reason: AttemptReason | undefined;
  /** Started: collectors of the target left out, or run again, within the cooldown. */
  leftOut: string[];
  ranAgain: string[];
  runs: WatchedRun[];
  /** Every step, oldest first. */
  steps: Array<{ step: AuditStep; at: Date }>;
  /** Where the live status stands: watching, finished, timed out, unavailable… (from the watch, when there is one). */
  watch?: { note: string | undefined; done: boolean } | undefined;
}

/** Why a decision was turned away before anything was sent to the service. */
export type DecisionRefusal =
  | { kind: 'not-linked' }
  /** The service would not show the approval to this user: completed, reassigned, withdrawn, or never theirs. */
  | { kind: 'not-visible' }
  /** The service shows it completed already (as `state`, by `by`). */
  | { kind: 'not-pending'; state: string; by: string }
  /** Its items are decided one by one, in the service. */
  | { kind: 'line-items' }
  /** The action chosen is not among those the service lists for it now. */
  | { kind: 'action-not-listed'; listed: string[] }
  /** Decided from chat already (by this user or another). */
  | { kind: 'already-decided'; userId: string; action: string; at: Date }
  /** A decision on it is being sent, or was sent without an answer, and may not be sent again yet. */
  | { kind: 'held'; userId: string; action: string; state: 'sending' | 'unsettled'; until: Date }
  /** The service does not offer a command the decision needs (the decision call, or getApprovalDetails to check it). */
  | { kind: 'not-offered'; command: string }
  /** Reading the approval before sending failed; nothing was sent. */
  | { kind: 'check-failed'; error: string; message: string }
  /** The service refused this user this approval (a 403 on it, or getApprovalDetails refused to them alone); their link still works. */
  | { kind: 'not-allowed' }
  /** It is not in the user's own pending list: they may see it, but it is not theirs to decide. */
  | { kind: 'not-theirs' }
  /** The token to send it with could not be had (the trusted mode's sign-in failed): nothing was sent. */
  | { kind: 'sign-in-failed'; error: string; message: string }
  /** The hold gave way while the approval was being checked (a slow service), so it was not this decision's to send any more. */
  | { kind: 'hold-lost' }
  /** countersign began to stop before the decision was sent: nothing was sent. */
  | { kind: 'stopping' };

/** What the service shows of an approval, read after a decision: for the trail, and for the approver. */
export interface SeenState {
  pending: boolean;
  state: string;
  completedDate: string;
  completedBy: string;
}

/** How the service answered a decision that was sent. */
export type DecisionResult =
  /**
   * It answered a 2xx (`status`), and getApprovalDetails then showed it completed as the very action
   * sent. (Rows written before the read afterwards decided it have no status, and `after` when an
   * older release took it from a read alone.)
   */
  | { result: 'done'; seen?: SeenState | undefined; status?: number | undefined; after?: string | undefined }
  /** It refused it, by its error's kind (ServiceError kinds), with what it said. */
  | { result: 'refused'; error: string; message: string; status?: number | undefined }
  /** It never reached the service (no connection could be made). */
  | { result: 'not-sent'; error: string; message: string }
  /**
   * No answer that says (a timeout, a connection lost, a 5xx, a 408), or a 2xx after which the
   * service did not show the approval completed as sent (`status`; `says`, a failure its body stated).
   * `seen` is what getApprovalDetails showed afterwards, when it answered.
   */
  | {
      result: 'unknown';
      error: string;
      message: string;
      seen?: SeenState | undefined;
      status?: number | undefined;
      says?: string | undefined;
    };

/**
 * What the service showed of a decision whose outcome no answer told, read again once its call could
 * no longer land (or found so when another decision on the approval was checked). Nothing is claimed
 * for it from this: the approval completed as the action sent may be another approver's doing.
 */
export interface DecisionFound {
  /**
   * completed: the service shows it completed (`seen` says how, and by whom); pending: still waiting,
   * so the call did not take; not-sent: the decision ended before it was sent; unreadable: the service
   * could not be read (`why`), and it is looked at no more.
   */
  found: 'completed' | 'pending' | 'not-sent' | 'unreadable';
  seen?: SeenState | undefined;
  why?: string | undefined;
  /** Who read it: countersign's own check later, or the check before another decision on the approval. */
  by: 'reconciler' | 'next-decision';
}

export type DecisionStep =
  /** The approver chose an action and was shown its confirmation. */
  | { step: 'asked' }
  /** They submitted it, with this comment; the decision was claimed for them. */
  | { step: 'confirmed'; comment: string }
  /** Turned away; `comment`, what they had typed, when it was a submission. */
  | { step: 'refused'; reason: DecisionRefusal; comment?: string | undefined }
  | { step: 'sent' }
  /** Sent once more, in the trusted mode, after the service refused countersign's expired token before running it and a new sign-in. */
  | { step: 'resent' }
  | ({ step: 'answered' } & DecisionResult)
  /** Found afterwards: what the service showed of a decision no answer settled. */
  | ({ step: 'reconciled' } & DecisionFound);

/** A step of a decision as it is recorded: who, which approval, which action, and the step. Never a token. */
export type DecisionEvent = DecisionStep & {
  /** Every step of one decision has its id. */
  decisionId: string;
  at: Date;
  teamId: string;
  userId: string;
  approvalId: string;
  action: string;
  /** The Slack request it was made in, as every log line of it says. */
  requestId?: string | undefined;
};

/** A decision read back from its steps. */
export interface DecisionRecord {
  id: string;
  /** When it began (the action chosen), and its latest step. */
  at: Date;
  lastAt: Date;
  teamId: string;
  userId: string;
  approvalId: string;
  action: string;
  comment: string | undefined;
  /** How it stands: 'asked' (no submission), 'refused' (before sending), 'sent' (no answer recorded), or the service's answer. */
  outcome: 'asked' | 'confirmed' | 'refused' | 'sent' | 'done' | 'not-done' | 'not-sent' | 'unknown';
  refusal: DecisionRefusal | undefined;
  answer: DecisionResult | undefined;
  /** What was found afterwards, for one that was sent and no answer settled; with when. */
  found: (DecisionFound & { at: Date }) | undefined;
  /** Sent, and neither an answer nor a later reading says how it ended: it will be read again. */
  unsettled: boolean;
  steps: Array<{ step: AuditStep; at: Date; requestId: string | undefined }>;
}

/** A decision's hold on an approval: one at a time, so that none is sent twice. */
export interface DecisionHold {
  decisionId: string;
  teamId: string;
  userId: string;
  action: string;
  /** sending: claimed, its call under way; unsettled: sent, no answer that says; done: the service took it (or shows it completed). */
  state: 'sending' | 'unsettled' | 'done';
  at: Date;
  /** Until when a sending or unsettled hold keeps others off: after it, a new decision may take it (and checks the service first). */
  until: Date;
  settledAt: Date | undefined;
}

export type DecisionClaim = { claimed: true } | { claimed: false; holder: DecisionHold };

export type CooldownHolderOf = Extract<CooldownClaim, { claimed: false }>['holder'];

export type CooldownClaim =
  | { claimed: true }
  | { claimed: false; holder: { userId: string; channelId: string; at: Date; attemptId: string } };

/** A started collection whose channel message follows its runs until they end. */
export interface RunWatch {
  attemptId: string;
  teamId: string;
  /** The starter: their token asks for the status, and they hear if it fails. */
  userId: string;
  channelId: string;
  messageTs: string;
  query: CollectQuery;
  runs: WatchedRun[];
  startedAt: Date;
  deadline: Date;
  nextPollAt: Date;
  intervalMs: number;
  doneAt: Date | undefined;
  /** How the watch ended, or what the message says about it (e.g. "unavailable"). */
  note: string | undefined;
}

export interface AuditFilter {
  teamId?: string | undefined;
  channelId?: string | undefined;
  userId?: string | undefined;
  since?: Date | undefined;
  limit: number;
}

/** The stored tokens written with one key. */
export interface KeyUsage {
  keyId: string;
  tokens: number;
  /** One of them decrypted with the configured keys. */
  readable: boolean;
  /** A few of the users whose tokens these are, for the message. */
  users: string[];
}

export interface Store {
  getToken(who: Principal, command: ServiceCommandName): Promise<LinkedToken | undefined>;
  /** `account`: the service account a sign-in named, kept beside the token (a re-link without one forgets it). */
  setToken(
    who: Principal,
    commands: readonly ServiceCommandName[],
    token: Secret,
    source: TokenSource,
    at: Date,
    account?: ServiceIdentity,
  ): Promise<void>;
  /**
   * Forgets every token that would act for the user: with a team id (a Principal), that
   * workspace's links and the any-workspace ones (team ''), since either would serve them there;
   * without one, their links in every workspace. Returns how many links were removed.
   */
  deleteTokens(who: TokenHolder): Promise<number>;
  /** Every link, or one user's (their workspace's and any-workspace links): never the tokens. */
  listLinks(who?: Principal): Promise<LinkSummary[]>;
  /** Notes how a call went on the link getToken serves for `who`: the one whose token was used, and no other. */
  recordOutcome(who: Principal, command: ServiceCommandName, outcome: 'ok' | 'rejected', at: Date): Promise<void>;

  /** The user's identity in the service: the workspace's link before one made for any workspace (team ''). */
  getIdentity(who: Principal): Promise<IdentityLink | undefined>;
  /** Links (or re-links) the user's identity; how its calls went starts afresh. */
  setIdentity(who: Principal, identity: ServiceIdentity, source: IdentitySource, at: Date): Promise<void>;
  /** Forgets the identities that would act for the user, by the same rule as deleteTokens; returns how many. */
  deleteIdentities(who: TokenHolder): Promise<number>;
  /** Every identity, or one user's (their workspace's and the any-workspace one). */
  listIdentities(who?: Principal): Promise<IdentityLink[]>;
  /** Notes how a call made for the user went, on the identity getIdentity serves. */
  recordIdentityOutcome(who: Principal, outcome: IdentityOutcome, at: Date): Promise<void>;

  createConfirmation(confirmation: PendingConfirmation): Promise<void>;
  /**
   * Marks the confirmation used, atomically: of any number of concurrent claims (double clicks,
   * two instances), exactly one gets 'claimed'. The owner check comes first, so another user's
   * click neither runs nor burns it.
   */
  claimConfirmation(id: string, userId: string, at: Date): Promise<ClaimResult>;

  /** Creates or replaces the user's reminder; a pause for an expired token stays until they link again. */
  setReminder(reminder: NewReminder): Promise<void>;
  getReminder(who: Principal): Promise<Reminder | undefined>;
  deleteReminder(who: Principal): Promise<boolean>;
  /** Pauses the user's reminder (they unlinked): no digest, and no "link again" message, until they link. */
  pauseReminder(who: Principal, at: Date): Promise<void>;
  /**
   * Leases up to `limit` reminders whose dueAt has come to `owner` until `leaseUntil`. A reminder
   * leased by a live taker is skipped, so on any number of instances each is taken once; one whose
   * lease ran out (its taker died) is taken again.
   */
  claimDueReminders(now: Date, owner: string, leaseUntil: Date, limit: number): Promise<Reminder[]>;
  /**
   * Records that the digest for `nextAt` is being sent. False when `owner` no longer holds the
   * lease, the reminder was changed, or that digest was sent already: then it must not be sent.
   */
  markReminderSending(who: Principal, owner: string, nextAt: Date): Promise<boolean>;
  /** Moves the reminder on and lets go of the lease. False when it was changed or deleted meanwhile (nothing is written). */
  releaseReminder(who: Principal, owner: string, claimedNextAt: Date, next: ReminderRelease): Promise<boolean>;
  /** Extends every lease `owner` holds on reminders to `until` (a digest waiting its turn at the service keeps its reminder); returns how many. */
  renewReminderLeases(owner: string, until: Date): Promise<number>;

  /**
   * Leases one of the service-call slots numbered below `limit` to `owner` until `until`: the
   * reminders' calls to the service, counted on every instance that shares this store. Undefined
   * when each is held by someone whose lease has not run out. Slots are made as needed, so
   * instances configured with different limits share the lower-numbered ones.
   */
  takeServiceSlot(owner: string, limit: number, now: Date, until: Date): Promise<number | undefined>;
  /** Gives a slot back (only its owner can), to be taken again at once. */
  releaseServiceSlot(owner: string, slot: number): Promise<void>;
  /** Extends every slot `owner` holds to `until`; returns how many. */
  renewServiceSlots(owner: string, until: Date): Promise<number>;

  /** An approver's arrival setting; undefined when they never had a watch (on, no quiet hours, by default). */
  notifySetting(userId: string): Promise<NotifySetting | undefined>;
  /** Changes it (making the watch when there is none); switching on from off makes the next check, due at once, prime. */
  setNotify(who: Principal, change: NotifySettingChange, at: Date): Promise<NotifySetting>;
  /**
   * Leases up to `limit` watches that are on and due at `now` to `owner` until `leaseUntil`, and
   * moves their next check to `nextAt`, in one statement: as claimDueReminders, each is taken by one
   * taker, and again once its lease runs out. A check that changes nothing writes nothing more.
   */
  claimDueArrivalWatches(now: Date, owner: string, leaseUntil: Date, nextAt: Date, limit: number): Promise<ArrivalWatch[]>;
  /**
   * Whether a watch is due at `now` and not leased, read without claiming it: a checker asks this
   * before it takes a service slot, so that an idle tick writes nothing.
   */
  arrivalWatchDue(now: Date): Promise<boolean>;
  /** Extends `owner`'s leases on these approvers' watches (checks under way) to `until`; returns how many. */
  renewArrivalLeases(owner: string, userIds: readonly string[], until: Date): Promise<number>;
  /**
   * Parks the watch until the user links again (setToken for findApprovals, setIdentity) and makes
   * that check prime. Only its lease holder can, and not once the user linked since the claim (its
   * next check is then no longer `claimedNextAt`). False when nothing was parked.
   */
  pauseArrivalWatch(userId: string, owner: string, claimedNextAt: Date): Promise<boolean>;
  /** Every approval remembered for the approver, gone ones included. */
  arrivalItems(userId: string): Promise<KeptArrival[]>;
  /**
   * Writes a check's changes in one transaction, only while `owner` holds the watch: undefined when
   * it no longer does (nothing written, nothing to send). `announced`: the approvals recorded for the
   * message, in order (one recorded already by another check is left out); the message is recorded
   * only when there is one.
   */
  saveArrivalCheck(userId: string, owner: string, at: Date, changes: ArrivalCheckChanges): Promise<{ announced: string[] } | undefined>;
  /** The DM Slack took for a recorded message: where to redraw it. */
  setArrivalMessage(messageId: string, channel: string, ts: string): Promise<void>;
  /** Slack can no longer update the DM: it is redrawn no more. */
  forgetArrivalMessage(messageId: string): Promise<void>;
  /** Posted DMs still redrawable, with their entries. */
  arrivalMessages(messageIds: readonly string[]): Promise<KeptArrivalMessage[]>;
  /** Notes a decision from Slack on every approver's remembered approval; returns the posted DMs that list it. */
  decideArrival(approvalId: string, decided: ArrivalDecided): Promise<KeptArrivalMessage[]>;
  /** Forgets approvals gone before `before`, and DMs older than it that list none kept; returns how many approvals. */
  pruneArrivals(before: Date): Promise<number>;
  /**
   * The "link again" message, once per lapse whichever feature meets it first (digests, arrivals):
   * true the first time for the link made at `linkedAt`, false after.
   */
  claimRelinkNotice(who: Principal, linkedAt: Date, at: Date): Promise<boolean>;

  /** Appends a step of a collection attempt to the audit trail: rows are only ever added, never changed or removed. */
  recordCollectStep(event: CollectEvent): Promise<void>;
  /** Attempts, latest activity first, each read back from its steps, with the live state of their runs. */
  listCollectAttempts(filter: AuditFilter): Promise<CollectAttempt[]>;
  /** Appends a step of a decision to the audit trail. */
  recordDecisionStep(event: DecisionEvent): Promise<void>;
  /** Decisions, latest activity first, each read back from its steps. */
  listDecisions(filter: AuditFilter): Promise<DecisionRecord[]>;
  /**
   * Claims an approval for one decision, atomically: of any number of concurrent claims (a double
   * submit, a retry from Slack, two instances), one gets it, and the others learn who holds it. A
   * hold is never taken over here: one that is done is for good, and one sending or unsettled whose
   * `until` has passed is first reconciled (what became of it found and recorded), then taken with
   * takeExpiredDecision.
   */
  claimDecision(c: {
    approvalId: string;
    decisionId: string;
    teamId: string;
    userId: string;
    action: string;
    at: Date;
    until: Date;
  }): Promise<DecisionClaim>;
  /** The decision's hold becomes done (for good) or unsettled until `until`; false when it no longer holds it. */
  settleDecision(approvalId: string, decisionId: string, state: 'done' | 'unsettled', at: Date, until: Date): Promise<boolean>;
  /**
   * Keeps the decision's hold, still sending, until `until`: false when it is no longer this
   * decision's (it gave way and another took it, or it was settled), and then nothing is sent.
   */
  extendDecision(approvalId: string, decisionId: string, until: Date): Promise<boolean>;
  /** Gives the approval back (nothing was sent, or the service said no): only the decision that holds it can. */
  releaseDecision(approvalId: string, decisionId: string): Promise<void>;
  /** The holds on these approvals (any state), by approval id. */
  decisionHolds(approvalIds: readonly string[]): Promise<Map<string, DecisionHold>>;
  /** One decision read back from its steps; undefined when none has this id. */
  decisionRecord(decisionId: string): Promise<DecisionRecord | undefined>;
  /**
   * Holds that are not done and whose `until` has passed (at `now`), oldest first: decisions whose
   * call can no longer land and that nothing settled. Each stays until it is reconciled and released.
   */
  expiredDecisionHolds(now: Date, limit: number): Promise<Array<{ approvalId: string; hold: DecisionHold }>>;
  /**
   * Takes the expired hold of decision `from` for another use, atomically (its `until` passed at
   * `now`, it is not done, and nobody took it since): for the decision `to` (a claim, state sending)
   * or, with `to` undefined, for reconciling it, the same decision kept and its `until` moved on.
   * False when it is no longer that decision's, or not expired.
   */
  takeExpiredDecision(
    approvalId: string,
    from: string,
    now: Date,
    until: Date,
    to?: { decisionId: string; teamId: string; userId: string; action: string } | undefined,
  ): Promise<boolean>;
  /**
   * Takes the cooldown for a collection target in a workspace, atomically: of two starts of the
   * same target within `cooldownMs`, on any instances, one gets it and the other learns who has it.
   */
  claimCooldown(c: {
    teamId: string;
    target: string;
    userId: string;
    channelId: string;
    attemptId: string;
    at: Date;
    cooldownMs: number;
  }): Promise<CooldownClaim>;
  /** Gives the cooldown back (the start failed or matched nothing); only the attempt that took it can. */
  releaseCooldown(teamId: string, target: string, attemptId: string): Promise<void>;
  /** Gives back every cooldown the attempt still holds (each of its runs aborted), in one statement; returns how many. */
  releaseCooldownsOf(teamId: string, attemptId: string): Promise<number>;
  /** Who holds the cooldown of a target at `at`, without taking it: for asking one question instead of two. */
  peekCooldown(teamId: string, target: string, at: Date, cooldownMs: number): Promise<CooldownHolderOf | undefined>;

  /** Stores a watch; its messageTs may be '' while the channel message is not posted yet (or never is). */
  createWatch(watch: RunWatch): Promise<void>;
  /** The channel message of a watch stored before it was posted: set once, whoever holds the lease. */
  setWatchMessage(attemptId: string, messageTs: string): Promise<void>;
  /** Leases watches whose next poll has come, as claimDueReminders does. */
  claimDueWatches(now: Date, owner: string, leaseUntil: Date, limit: number): Promise<RunWatch[]>;
  /** Saves what a poll learnt and lets go of the lease; false when `owner` no longer holds it. */
  saveWatch(watch: RunWatch, owner: string): Promise<boolean>;

  /** Re-encrypts every token written with an older key; returns how many were rewritten. */
  rotateKeys(): Promise<number>;
  /** Which keys the stored tokens were written with, and whether this store's keys read them (checked at start). */
  keyUsage(): Promise<KeyUsage[]>;

  /**
   * Remembers a Slack request signature until `until`, atomically: true the first time, false when
   * it is already remembered (a replay), on any instance sharing the database. Rows past their
   * time are pruned as it goes, measured by `now`.
   */
  rememberSignature(signature: string, until: Date, now: Date): Promise<boolean>;
  /** A cheap read that proves the database answers (health); rejects when it does not. */
  ping(): Promise<void>;

  close(): Promise<void>;
}
