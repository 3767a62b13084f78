/**
 * The demo data set: deterministic (the same seed gives the same rows), dated relative to the
 * moment it is loaded so that "overdue" and "due today" always mean something, and varied enough
 * to exercise every filter. A few rows are hostile on purpose (mrkdwn, HTML, commas) because a
 * chat app must show such names inertly.
 */

import { randomBytes, scryptSync } from 'node:crypto';
import { createIndexes, type Db } from './db.js';
import { type ApprovalRowForRequest, sketchRequest } from './requests.js';
import { ENTITLEMENTS, seededRandom } from './seeded.js';
import { DEFAULT_SERVICE_ZONE, formatServiceTimestamp } from './time.js';

export interface DemoUser {
  id: string;
  firstName: string;
  lastName: string;
  authSource: string;
  /** Demo password; null for users who cannot log in (requesters). */
  password: string | null;
  commands: string[];
  /** Approvals assigned to this user as approver in the demo set. */
  approvals: number;
}

export const DEMO_PASSWORD = 'demo';

export const DEMO_USERS: readonly DemoUser[] = [
  {
    id: 'ada.lovelace',
    firstName: 'Ada',
    lastName: 'Lovelace',
    authSource: 'internal',
    password: DEMO_PASSWORD,
    commands: ['findApprovals', 'getApprovalDetails', 'getRequestItems', 'performWorkItem', 'logoutUser'],
    approvals: 240,
  },
  {
    id: 'grace.hopper',
    firstName: 'Grace',
    lastName: 'Hopper',
    authSource: 'internal',
    password: DEMO_PASSWORD,
    commands: [
      'findApprovals',
      'getApprovalDetails',
      'getRequestItems',
      'performWorkItem',
      'collectEntitlements',
      'getRunStatus',
      'logoutUser',
    ],
    approvals: 120,
  },
  {
    id: 'katherine.johnson',
    firstName: 'Katherine',
    lastName: 'Johnson',
    authSource: 'corp-ldap',
    password: DEMO_PASSWORD,
    commands: ['findApprovals', 'getApprovalDetails', 'getRequestItems', 'performWorkItem', 'logoutUser'],
    approvals: 60,
  },
  {
    id: 'oscar.ops',
    firstName: 'Oscar',
    lastName: 'Ops',
    authSource: 'internal',
    password: DEMO_PASSWORD,
    commands: ['collectEntitlements', 'getRunStatus', 'logoutUser'],
    approvals: 0,
  },
];

export interface DemoCollector {
  name: string;
  application: string;
  /** A tripped circuit breaker aborts the run unless it is forced. */
  breakerTripped: boolean;
}

export const DEMO_COLLECTORS: readonly DemoCollector[] = [
  { name: 'AD Accounts', application: 'Active Directory', breakerTripped: false },
  { name: 'AD Groups', application: 'Active Directory', breakerTripped: false },
  { name: 'Salesforce Users', application: 'Salesforce', breakerTripped: false },
  { name: 'AWS IAM', application: 'AWS', breakerTripped: true },
  { name: 'GitHub Org Members', application: 'GitHub', breakerTripped: false },
  { name: 'SAP Roles', application: 'SAP', breakerTripped: false },
  { name: 'Workday Workers', application: 'Workday', breakerTripped: false },
];

const FIRST_NAMES = [
  'Alan',
  'Barbara',
  'Claude',
  'Dorothy',
  'Edsger',
  'Frances',
  'Guido',
  'Hedy',
  'Ivan',
  'Jean',
  'Ken',
  'Lynn',
  'Margaret',
  'Niklaus',
  'Radia',
  'Tim',
];
const LAST_NAMES = [
  'Turing',
  'Liskov',
  'Shannon',
  'Vaughan',
  'Dijkstra',
  'Allen',
  'van Rossum',
  'Lamarr',
  'Sutherland',
  'Bartik',
  'Thompson',
  'Conway',
  'Hamilton',
  'Wirth',
  'Perlman',
  "O'Brien",
];

/** Steps of three workflows: approvals (Accepted / Rejected), a review (Approved / Rejected / Needs Info), an activity (Completed / Canceled). */
export const WORK_ITEM_NAMES: readonly string[] = [
  'Manager Approval',
  'Entitlement Owner Approval',
  'Fulfillment Activity',
  'Security Review',
];

/** Names that a careless renderer would turn into pings, links or markup, or that reorder themselves on screen. */
export const HOSTILE_REQUEST_NAMES: readonly string[] = [
  '<!channel> urgent: Add Access for Bobby Tables',
  'Add Access for <b>Mallory</b> & friends',
  'Add Access for *bold* _italic_ ~strike~ `code`',
  'Add Access for Smith, John',
  // A right-to-left override: shown as written, it reads "Invoice exe.jpg".
  'Invoice \u202Egpj.exe',
];

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  // Low cost on purpose: these are demo accounts, and start-up time matters more here.
  const hash = scryptSync(password, salt, 32, { N: 1024 });
  return `${salt.toString('hex')}:${hash.toString('hex')}`;
}

const DAY_MS = 86_400_000;

interface ApprovalSeed {
  now: Date;
  /** The zone whose clocks the service's times are written on. */
  timeZone: string;
  rand: () => number;
  approverIds: readonly string[];
  perApprover: (approverId: string, index: number) => number;
  /** Request ids (and so work item ids) start after this one. */
  firstRequestId: number;
}

/** Inserts approvals; callers wrap it in a transaction. Returns how many rows were written. */
function insertApprovals(db: Db, seed: ApprovalSeed, requesters: ReadonlyArray<{ id: string; first: string; last: string }>): number {
  const insert = db.prepare(
    `INSERT INTO approvals (work_item_id, work_item_name, request_id, request_name, approver_id, requester_id,
       requester_first_name, requester_last_name, business_source, entitlement_name, entitlement_type, state,
       requested_at, due_at, completed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const { rand, now } = seed;
  let written = 0;
  let requestId = seed.firstRequestId;
  seed.approverIds.forEach((approverId, approverIndex) => {
    const total = seed.perApprover(approverId, approverIndex);
    for (let i = 0; i < total; i++) {
      requestId++;
      const requester = pick(rand, requesters);
      const entitlement = pick(rand, ENTITLEMENTS);
      const completed = rand() < 0.3;
      // Due from three weeks ago to six weeks ahead, so that some are overdue and some due today.
      const dueMs = now.getTime() + (Math.floor(rand() * 63) - 21) * DAY_MS + Math.floor(rand() * 8 * 3_600_000);
      // Requested 3 to 16 days before it is due, and always in the past: a request is made before it is approved.
      const requestedMs = Math.min(dueMs - (3 + rand() * 13) * DAY_MS, now.getTime() - (1 + rand() * 96) * 3_600_000);
      // Completed some time between the request and now, never in the future.
      const completedMs = requestedMs + 60_000 + rand() * (now.getTime() - requestedMs - 120_000);
      const requestedAt = formatServiceTimestamp(new Date(requestedMs), seed.timeZone);
      const dueAt = formatServiceTimestamp(new Date(dueMs), seed.timeZone);
      const completedAt = completed ? formatServiceTimestamp(new Date(completedMs), seed.timeZone) : null;
      const hostile = approverIndex === 0 && i < HOSTILE_REQUEST_NAMES.length ? HOSTILE_REQUEST_NAMES[i] : undefined;
      const requestName = hostile ?? `Add Access for ${requester.last}, ${requester.first}: ${entitlement.name}`;
      insert.run(
        `${requestId}:${pick(rand, ['WPDS', 'WPDA', 'WPRV'])}:${1 + Math.floor(rand() * 3)}`,
        pick(rand, WORK_ITEM_NAMES),
        requestId,
        requestName,
        approverId,
        requester.id,
        requester.first,
        requester.last,
        entitlement.source,
        entitlement.name,
        entitlement.type,
        hostile !== undefined || !completed ? 'pending' : 'completed',
        requestedAt,
        dueAt,
        hostile !== undefined ? null : completedAt,
      );
      written++;
    }
  });
  return written;
}

/** The people who ask: demo users who cannot log in, named after pioneers of computing. */
export function requesterRows(): Array<{ id: string; first: string; last: string }> {
  const rows: Array<{ id: string; first: string; last: string }> = [];
  FIRST_NAMES.forEach((first, i) => {
    const last = LAST_NAMES[i % LAST_NAMES.length] as string;
    rows.push({ id: `${first}.${last}`.toLowerCase().replace(/[^a-z.]/g, ''), first, last });
  });
  return rows;
}

/**
 * Loads the demo users, collectors and approvals into an empty database, their times written on the
 * clocks of `timeZone` (UTC by default), which the database remembers (serviceZoneOf).
 */
export function loadDemoData(db: Db, now: Date, options: { seed?: number; timeZone?: string | undefined } = {}): void {
  const timeZone = options.timeZone ?? DEFAULT_SERVICE_ZONE;
  const rand = seededRandom(options.seed ?? 42);
  const requesters = requesterRows();
  db.transaction(() => {
    const insertUser = db.prepare(
      'INSERT INTO users (id, first_name, last_name, auth_source, password_hash, commands) VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (const u of DEMO_USERS) {
      insertUser.run(
        u.id,
        u.firstName,
        u.lastName,
        u.authSource,
        u.password === null ? null : hashPassword(u.password),
        u.commands.join(','),
      );
    }
    for (const r of requesters) insertUser.run(r.id, r.first, r.last, 'internal', null, '');
    // Seconds since 2020 at load: a later load starts above every run id an earlier one gave out.
    const runIdBase = Math.floor((now.getTime() - Date.UTC(2020, 0, 1)) / 1000);
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('run_id_base', ?)").run(String(runIdBase));
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('time_zone', ?)").run(timeZone);
    const insertCollector = db.prepare('INSERT INTO collectors (name, application, breaker_tripped) VALUES (?, ?, ?)');
    for (const c of DEMO_COLLECTORS) insertCollector.run(c.name, c.application, c.breakerTripped ? 1 : 0);
    const approvers = DEMO_USERS.filter((u) => u.approvals > 0);
    insertApprovals(
      db,
      {
        now,
        timeZone,
        rand,
        approverIds: approvers.map((u) => u.id),
        perApprover: (_id, i) => (approvers[i] as DemoUser).approvals,
        firstRequestId: 10_000,
      },
      requesters,
    );
    showcaseFirst(
      db,
      approvers.map((u) => u.id),
    );
  })();
  createIndexes(db);
}

/** How many of each approver's soonest due approvals (the first a page lists) show what countersign does. */
const SHOWCASE = 3;

type ShowcaseRow = ApprovalRowForRequest & { work_item_id: string; requested_at: string; due_at: string };

/**
 * The approvals a newcomer opens first (each approver's soonest due, first on `/approvals` and on
 * Home) show the product: a request of a few items, decided as a whole with the actions its step
 * lists, named plainly. Any other among the first SHOWCASE changes places (its requested and due
 * times) with the soonest due one after them that does; every row keeps its own request (items,
 * actions), so the data stays what the seed made of it, only in another order.
 */
function showcaseFirst(db: Db, approverIds: readonly string[]): void {
  const pending = db.prepare<[string], ShowcaseRow>(
    `SELECT work_item_id, work_item_name, request_id, request_name, requester_id, requester_first_name, requester_last_name,
       business_source, entitlement_name, entitlement_type, state, requested_at, due_at
     FROM approvals WHERE approver_id = ? AND state = 'pending' ORDER BY due_at, work_item_id`,
  );
  const move = db.prepare<[string, string, string]>('UPDATE approvals SET requested_at = ?, due_at = ? WHERE work_item_id = ?');
  const shows = (row: ShowcaseRow) => {
    if (HOSTILE_REQUEST_NAMES.includes(row.request_name)) return false;
    const request = sketchRequest(row, false);
    return !request.lineItemApprovalEnabled && request.actions.length >= 2 && request.items.length >= 2 && request.items.length <= 10;
  };
  for (const approverId of approverIds) {
    const rows = pending.all(approverId);
    const used = new Set<number>();
    for (let i = 0; i < Math.min(SHOWCASE, rows.length); i++) {
      const here = rows[i] as ShowcaseRow;
      if (shows(here)) continue;
      const j = rows.findIndex((r, k) => k > i && k >= SHOWCASE && !used.has(k) && shows(r));
      if (j < 0) continue;
      used.add(j);
      const there = rows[j] as ShowcaseRow;
      move.run(there.requested_at, there.due_at, here.work_item_id);
      move.run(here.requested_at, here.due_at, there.work_item_id);
      rows[i] = { ...there, requested_at: here.requested_at, due_at: here.due_at };
      rows[j] = { ...here, requested_at: there.requested_at, due_at: there.due_at };
    }
  }
}

/** The zone a database's times were written in: as its demo data was loaded, or UTC for a file from before zones were kept. */
export function serviceZoneOf(db: Db): string {
  const row = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'time_zone'").get();
  return row?.value ?? DEFAULT_SERVICE_ZONE;
}

/**
 * A large data set for benchmarks: `total` approvals spread over `approvers` approvers named
 * approver-1 … approver-N, plus the demo users. Indexes are built once, after the load.
 */
export function loadBulkData(db: Db, now: Date, total: number, approvers = 1_000, seed = 7): void {
  loadDemoDataWithoutIndexes(db, now);
  const rand = seededRandom(seed);
  const requesters = requesterRows();
  const ids = Array.from({ length: approvers }, (_, i) => `approver-${i + 1}`);
  db.transaction(() => {
    const insertUser = db.prepare('INSERT INTO users (id, first_name, last_name, commands) VALUES (?, ?, ?, ?)');
    for (const id of ids) insertUser.run(id, 'Bench', id, 'findApprovals');
    const base = Math.floor(total / approvers);
    insertApprovals(
      db,
      {
        now,
        timeZone: serviceZoneOf(db),
        rand,
        approverIds: ids,
        perApprover: (_id, i) => base + (i < total % approvers ? 1 : 0),
        firstRequestId: 1_000_000,
      },
      requesters,
    );
  })();
  createIndexes(db);
}

function loadDemoDataWithoutIndexes(db: Db, now: Date): void {
  loadDemoData(db, now);
  // The demo load built the indexes; drop them so the bulk load is not slowed by them.
  for (const { name } of db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
    .all()) {
    db.exec(`DROP INDEX ${name}`);
  }
}
