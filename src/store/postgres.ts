/**
 * The PostgreSQL store, for several instances behind a load balancer: every instance sees the
 * same tokens, and a confirmation's claim is one conditional UPDATE, so of any number of clicks
 * on any number of instances exactly one starts the collection. The migrations of schema.ts run
 * at start under an advisory lock, so instances starting together do not race.
 */

import pg from 'pg';
import type { Secret } from '../runtime/secret.js';
import {
  type ArrivalItemRow,
  type ArrivalMessageRow,
  type ArrivalWatchRow,
  arrivalWatchOf,
  decidedText,
  keptArrivalOf,
  keptMessagesOf,
  notifySettingOf,
  summaryText,
} from './arrival-rows.js';
import {
  AuditIds,
  type AuditRow,
  type CollectRow,
  collectValues,
  decisionValues,
  foldAttempts,
  foldDecisions,
  INSERT_AUDIT,
} from './audit.js';
import { type KeyGroup, keyUsageOf } from './key-check.js';
import { Keyring, OutcomeThrottle } from './keyring.js';
import {
  type ConfirmationRow,
  type CooldownHolderRow,
  confirmationOf,
  cooldownHolderOf,
  type DecisionHoldRow,
  decisionClaimOutcome,
  decisionHoldOf,
  type IdentityRow,
  identityOf,
  identityOutcomeText,
  linkedTokenOf,
  linkOf,
  type ReminderRow,
  reencrypted,
  reminderOf,
  type TokenRow,
  type WatchRow,
  watchOf,
} from './rows.js';
import {
  claimOutcome,
  confirmationPruneHorizon,
  cooldownHorizon,
  cooldownOutcome,
  heldBy,
  judgeClaim,
  pauseChange,
  SignaturePruning,
} from './rules.js';
import { APPLIED_VERSIONS, CREATE_MIGRATIONS_TABLE, pendingMigrations } from './schema.js';
import type {
  ArrivalCheckChanges,
  ArrivalDecided,
  ArrivalWatch,
  AuditFilter,
  ClaimResult,
  CollectAttempt,
  CollectEvent,
  CooldownClaim,
  CooldownHolderOf,
  DecisionClaim,
  DecisionEvent,
  DecisionHold,
  DecisionRecord,
  IdentityLink,
  IdentityOutcome,
  IdentitySource,
  KeptArrival,
  KeptArrivalMessage,
  KeyUsage,
  LinkedToken,
  LinkSummary,
  NewReminder,
  NotifySetting,
  NotifySettingChange,
  PendingConfirmation,
  Principal,
  Reminder,
  ReminderRelease,
  RunWatch,
  ServiceCommandName,
  ServiceIdentity,
  Store,
  TokenSource,
} from './types.js';
import { StoreUnavailableError } from './types.js';

/** Errors that mean the database could not be reached or went away, rather than refused a statement. */
function asUnavailable(error: unknown): unknown {
  const e = error as { code?: string; message?: string };
  const lost =
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '08000', '08003', '08006'].includes(
      e.code ?? '',
    ) || /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e.message ?? '');
  return lost ? new StoreUnavailableError(error) : error;
}

/** The outcome throttle's name for an identity's calls, apart from any command's. */
const IDENTITY_OUTCOME = 'service-identity';

/** The trail's one INSERT, with PostgreSQL's numbered placeholders. */
const INSERT_AUDIT_PG = numbered(INSERT_AUDIT);

function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Linking for findApprovals makes the approver watched, or wakes a watch parked until they linked again. */
const WAKE_ARRIVAL_WATCH = `INSERT INTO arrival_watches (user_id, team_id, enabled, prime, next_at) VALUES ($1, $2, 1, 1, $3)
  ON CONFLICT (user_id) DO UPDATE SET
    team_id = CASE WHEN excluded.team_id <> '' THEN excluded.team_id ELSE arrival_watches.team_id END,
    next_at = CASE WHEN arrival_watches.next_at IS NULL OR arrival_watches.next_at > excluded.next_at
      THEN excluded.next_at ELSE arrival_watches.next_at END`;

const ADD_ARRIVAL = `INSERT INTO arrival_items (user_id, approval_id, status, summary, actions, seen_at, message_id, position)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (user_id, approval_id) DO NOTHING`;

/** Any number: it only has to be the same for every instance of countersign. */
const MIGRATION_LOCK = 0x636f756e;

export class PostgresStore implements Store {
  readonly #pool: pg.Pool;
  readonly #keys: Keyring;
  readonly #outcomes = new OutcomeThrottle();
  readonly #auditIds = new AuditIds();
  readonly #pruning = new SignaturePruning();
  /** Service-call slots known to exist: made once per process, up to the largest limit asked for. */
  #slotsMade = 0;

  private constructor(pool: pg.Pool, keys: Keyring) {
    this.#pool = pool;
    this.#keys = keys;
  }

  /** `now`: the app's clock, for when a migration was applied; the composition root passes its own (openStore). */
  static async open(
    url: Secret,
    key: Secret,
    previousKey?: Secret,
    poolSize = 10,
    now: () => Date = () => new Date(),
  ): Promise<PostgresStore> {
    const pool = new pg.Pool({ connectionString: url.reveal(), max: poolSize, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000 });
    // An idle client's error (the server restarted) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    const store = new PostgresStore(pool, new Keyring(key, previousKey));
    try {
      await store.#migrate(now);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return store;
  }

  async #migrate(now: () => Date): Promise<void> {
    await this.#transaction(async (client) => {
      // Instances starting together queue on the lock; each then finds what the first applied.
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query(CREATE_MIGRATIONS_TABLE);
      const { rows } = await client.query<{ version: number }>(APPLIED_VERSIONS);
      for (const m of pendingMigrations(rows.map((r) => r.version))) {
        await client.query(m.sql);
        if (m.carry) {
          const { rows: old } = await client.query<Record<string, unknown>>(m.carry.select);
          for (const row of old) for (const values of m.carry.rows(row)) await client.query(INSERT_AUDIT_PG, values);
        }
        await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [m.version, now().getTime()]);
      }
    });
  }

  async getToken(who: Principal, command: ServiceCommandName): Promise<LinkedToken | undefined> {
    // A workspace-specific link wins over one made for any workspace (team '').
    const { rows } = await this.#query<TokenRow>(
      "SELECT * FROM tokens WHERE user_id = $1 AND command = $2 AND team_id IN ($3, '') ORDER BY team_id = '' LIMIT 1",
      [who.userId, command, who.teamId],
    );
    return rows[0] === undefined ? undefined : linkedTokenOf(rows[0], this.#keys);
  }

  async setToken(
    who: Principal,
    commands: readonly ServiceCommandName[],
    token: Secret,
    source: TokenSource,
    at: Date,
    account?: ServiceIdentity,
  ): Promise<void> {
    this.#outcomes.forget();
    this.#keys.forgetDecrypted();
    await this.#transaction(async (client) => {
      for (const command of commands) {
        await client.query(
          `INSERT INTO tokens (team_id, user_id, command, ciphertext, key_id, source, linked_at, service_user, authsource)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
           ON CONFLICT (team_id, user_id, command) DO UPDATE SET ciphertext = excluded.ciphertext, key_id = excluded.key_id,
             source = excluded.source, linked_at = excluded.linked_at, last_used_at = NULL, last_outcome = NULL,
             service_user = excluded.service_user, authsource = excluded.authsource`,
          [
            who.teamId,
            who.userId,
            command,
            this.#keys.encrypt(token, who, command),
            this.#keys.current.keyId,
            source,
            at.getTime(),
            account?.serviceUser ?? null,
            account?.serviceUser === undefined ? null : (account.authsource ?? null),
          ],
        );
      }
      if (commands.includes('findApprovals')) await client.query(WAKE_ARRIVAL_WATCH, [who.userId, who.teamId, at.getTime()]);
    });
  }

  async deleteTokens(who: Parameters<Store['deleteTokens']>[0]): Promise<number> {
    this.#outcomes.forget();
    this.#keys.forgetDecrypted();
    const { rowCount } =
      who.teamId === undefined
        ? await this.#query('DELETE FROM tokens WHERE user_id = $1', [who.userId])
        : await this.#query("DELETE FROM tokens WHERE user_id = $1 AND team_id IN ($2, '')", [who.userId, who.teamId]);
    return rowCount ?? 0;
  }

  async listLinks(who?: Principal): Promise<LinkSummary[]> {
    const { rows } =
      who === undefined
        ? await this.#query<TokenRow>('SELECT * FROM tokens ORDER BY team_id, user_id, command')
        : await this.#query<TokenRow>("SELECT * FROM tokens WHERE user_id = $1 AND team_id IN ($2, '') ORDER BY team_id, command", [
            who.userId,
            who.teamId,
          ]);
    return rows.map(linkOf);
  }

  async recordOutcome(who: Principal, command: ServiceCommandName, outcome: 'ok' | 'rejected', at: Date): Promise<void> {
    if (!this.#outcomes.shouldWrite(who, command, outcome, at)) return;
    // The row getToken serves (the workspace's before the any-workspace one), and only that one.
    await this.#query(
      `UPDATE tokens SET last_used_at = $1, last_outcome = $2 WHERE user_id = $3 AND command = $4 AND team_id =
         (SELECT team_id FROM tokens WHERE user_id = $3 AND command = $4 AND team_id IN ($5, '') ORDER BY team_id = '' LIMIT 1)`,
      [at.getTime(), outcome, who.userId, command, who.teamId],
    );
  }

  async getIdentity(who: Principal): Promise<IdentityLink | undefined> {
    // A workspace-specific link wins over one made for any workspace (team '').
    const { rows } = await this.#query<IdentityRow>(
      "SELECT * FROM service_identities WHERE user_id = $1 AND team_id IN ($2, '') ORDER BY team_id = '' LIMIT 1",
      [who.userId, who.teamId],
    );
    return rows[0] === undefined ? undefined : identityOf(rows[0]);
  }

  async setIdentity(who: Principal, identity: ServiceIdentity, source: IdentitySource, at: Date): Promise<void> {
    this.#outcomes.forget();
    this.#keys.forgetDecrypted();
    await this.#transaction(async (client) => {
      await client.query(
        `INSERT INTO service_identities (team_id, user_id, service_user, authsource, source, linked_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (team_id, user_id) DO UPDATE SET service_user = excluded.service_user, authsource = excluded.authsource,
           source = excluded.source, linked_at = excluded.linked_at, last_used_at = NULL, last_outcome = NULL`,
        [who.teamId, who.userId, identity.serviceUser, identity.authsource ?? null, source, at.getTime()],
      );
      await client.query(WAKE_ARRIVAL_WATCH, [who.userId, who.teamId, at.getTime()]);
    });
  }

  async deleteIdentities(who: Parameters<Store['deleteIdentities']>[0]): Promise<number> {
    this.#outcomes.forget();
    this.#keys.forgetDecrypted();
    const { rowCount } =
      who.teamId === undefined
        ? await this.#query('DELETE FROM service_identities WHERE user_id = $1', [who.userId])
        : await this.#query("DELETE FROM service_identities WHERE user_id = $1 AND team_id IN ($2, '')", [who.userId, who.teamId]);
    return rowCount ?? 0;
  }

  async listIdentities(who?: Principal): Promise<IdentityLink[]> {
    const { rows } =
      who === undefined
        ? await this.#query<IdentityRow>('SELECT * FROM service_identities ORDER BY team_id, user_id')
        : await this.#query<IdentityRow>("SELECT * FROM service_identities WHERE user_id = $1 AND team_id IN ($2, '') ORDER BY team_id", [
            who.userId,
            who.teamId,
          ]);
    return rows.map(identityOf);
  }

  async recordIdentityOutcome(who: Principal, outcome: IdentityOutcome, at: Date): Promise<void> {
    const text = identityOutcomeText(outcome);
    if (!this.#outcomes.shouldWrite(who, IDENTITY_OUTCOME, text, at)) return;
    await this.#query(
      `UPDATE service_identities SET last_used_at = $1, last_outcome = $2 WHERE user_id = $3 AND team_id =
         (SELECT team_id FROM service_identities WHERE user_id = $3 AND team_id IN ($4, '') ORDER BY team_id = '' LIMIT 1)`,
      [at.getTime(), text, who.userId, who.teamId],
    );
  }

  async createConfirmation(c: PendingConfirmation): Promise<void> {
    await this.#query(
      'INSERT INTO confirmations (id, team_id, channel_id, user_id, payload, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [c.id, c.teamId, c.channelId, c.userId, c.payload, c.createdAt.getTime(), c.expiresAt.getTime()],
    );
    await this.#query('DELETE FROM confirmations WHERE expires_at < $1', [confirmationPruneHorizon(c.createdAt)]);
  }

  async claimConfirmation(id: string, userId: string, at: Date): Promise<ClaimResult> {
    const { rows } = await this.#query<ConfirmationRow>('SELECT * FROM confirmations WHERE id = $1', [id]);
    const verdict = judgeClaim(rows[0] === undefined ? undefined : confirmationOf(rows[0]), userId, at);
    if (verdict.status !== 'claimable') return verdict;
    // The conditional update is the claim: only one caller, on any instance, can move used_at from NULL.
    const claimed = await this.#query('UPDATE confirmations SET used_at = $1 WHERE id = $2 AND used_at IS NULL', [at.getTime(), id]);
    return claimOutcome(verdict.confirmation, claimed.rowCount === 1);
  }

  async setReminder(r: NewReminder): Promise<void> {
    await this.#query(
      `INSERT INTO reminders (team_id, user_id, days, minute_of_day, time_zone, next_at, due_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (team_id, user_id) DO UPDATE SET days = excluded.days, minute_of_day = excluded.minute_of_day,
         time_zone = excluded.time_zone, next_at = excluded.next_at, due_at = excluded.due_at,
         sent_for = NULL, lease_owner = NULL, lease_until = NULL`,
      [r.teamId, r.userId, r.days, r.minuteOfDay, r.timeZone, r.nextAt.getTime(), r.dueAt.getTime()],
    );
  }

  async getReminder(who: Principal): Promise<Reminder | undefined> {
    const { rows } = await this.#query<ReminderRow>('SELECT * FROM reminders WHERE team_id = $1 AND user_id = $2', [
      who.teamId,
      who.userId,
    ]);
    return rows[0] === undefined ? undefined : reminderOf(rows[0]);
  }

  async deleteReminder(who: Principal): Promise<boolean> {
    const result = await this.#query('DELETE FROM reminders WHERE team_id = $1 AND user_id = $2', [who.teamId, who.userId]);
    return result.rowCount === 1;
  }

  async pauseReminder(who: Principal, at: Date): Promise<void> {
    await this.#query('UPDATE reminders SET paused_at = $1 WHERE team_id = $2 AND user_id = $3', [at.getTime(), who.teamId, who.userId]);
  }

  async claimDueReminders(now: Date, owner: string, leaseUntil: Date, limit: number): Promise<Reminder[]> {
    // SKIP LOCKED: instances ticking at the same moment each take different rows instead of queueing.
    const { rows } = await this.#query<ReminderRow>(
      `UPDATE reminders SET lease_owner = $1, lease_until = $2
       WHERE (team_id, user_id) IN (
         SELECT team_id, user_id FROM reminders WHERE due_at <= $3 AND (lease_until IS NULL OR lease_until <= $3)
         ORDER BY due_at LIMIT $4 FOR UPDATE SKIP LOCKED)
       AND due_at <= $3 AND (lease_until IS NULL OR lease_until <= $3)
       RETURNING *`,
      [owner, leaseUntil.getTime(), now.getTime(), limit],
    );
    return rows.map(reminderOf);
  }

  async markReminderSending(who: Principal, owner: string, nextAt: Date): Promise<boolean> {
    const result = await this.#query(
      `UPDATE reminders SET sent_for = next_at
       WHERE team_id = $1 AND user_id = $2 AND lease_owner = $3 AND next_at = $4 AND (sent_for IS NULL OR sent_for <> next_at)`,
      [who.teamId, who.userId, owner, nextAt.getTime()],
    );
    return result.rowCount === 1;
  }

  async releaseReminder(who: Principal, owner: string, claimedNextAt: Date, next: ReminderRelease): Promise<boolean> {
    const pause = pauseChange(next.pausedAt);
    const result = await this.#query(
      `UPDATE reminders SET next_at = $1, due_at = $2, time_zone = $3,
         paused_at = CASE WHEN $4 THEN $5::BIGINT ELSE paused_at END, lease_owner = NULL, lease_until = NULL
       WHERE team_id = $6 AND user_id = $7 AND lease_owner = $8 AND next_at = $9`,
      [
        next.nextAt.getTime(),
        next.dueAt.getTime(),
        next.timeZone,
        pause.write,
        pause.value,
        who.teamId,
        who.userId,
        owner,
        claimedNextAt.getTime(),
      ],
    );
    return result.rowCount === 1;
  }

  async renewReminderLeases(owner: string, until: Date): Promise<number> {
    return (await this.#query('UPDATE reminders SET lease_until = $1 WHERE lease_owner = $2', [until.getTime(), owner])).rowCount ?? 0;
  }

  async takeServiceSlot(owner: string, limit: number, now: Date, until: Date): Promise<number | undefined> {
    if (limit > this.#slotsMade) {
      await this.#query('INSERT INTO service_slots (slot) SELECT generate_series(0, $1::INTEGER - 1) ON CONFLICT DO NOTHING', [limit]);
      this.#slotsMade = limit;
    }
    // SKIP LOCKED: instances asking at the same moment each get a different slot instead of queueing.
    const { rows } = await this.#query<{ slot: number }>(
      `UPDATE service_slots SET owner = $1, until = $2
       WHERE slot = (
         SELECT slot FROM service_slots WHERE slot < $3 AND (owner IS NULL OR until <= $4)
         ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED)
       AND (owner IS NULL OR until <= $4)
       RETURNING slot`,
      [owner, until.getTime(), limit, now.getTime()],
    );
    return rows[0]?.slot;
  }

  async releaseServiceSlot(owner: string, slot: number): Promise<void> {
    await this.#query('UPDATE service_slots SET owner = NULL, until = NULL WHERE slot = $1 AND owner = $2', [slot, owner]);
  }

  async renewServiceSlots(owner: string, until: Date): Promise<number> {
    return (await this.#query('UPDATE service_slots SET until = $1 WHERE owner = $2', [until.getTime(), owner])).rowCount ?? 0;
  }

  async notifySetting(userId: string): Promise<NotifySetting | undefined> {
    const { rows } = await this.#query<ArrivalWatchRow>('SELECT * FROM arrival_watches WHERE user_id = $1', [userId]);
    return rows[0] === undefined ? undefined : notifySettingOf(rows[0]);
  }

  async setNotify(who: Principal, change: NotifySettingChange, at: Date): Promise<NotifySetting> {
    return this.#transaction(async (client) => {
      await client.query(
        `INSERT INTO arrival_watches (user_id, team_id, enabled, prime, next_at) VALUES ($1, $2, 1, 1, $3)
         ON CONFLICT (user_id) DO UPDATE SET team_id = CASE WHEN excluded.team_id <> '' THEN excluded.team_id ELSE arrival_watches.team_id END`,
        [who.userId, who.teamId, at.getTime()],
      );
      if ('enabled' in change) {
        // From off to on: the next check is due now and primes. The right-hand sides read the row as it was.
        if (change.enabled)
          await client.query(
            `UPDATE arrival_watches SET enabled = 1, prime = CASE WHEN enabled = 0 THEN 1 ELSE prime END,
               next_at = CASE WHEN enabled = 0 THEN $1 ELSE next_at END
             WHERE user_id = $2`,
            [at.getTime(), who.userId],
          );
        else await client.query('UPDATE arrival_watches SET enabled = 0 WHERE user_id = $1', [who.userId]);
      } else {
        await client.query('UPDATE arrival_watches SET quiet_start = $1, quiet_end = $2 WHERE user_id = $3', [
          change.quiet?.startMinute ?? null,
          change.quiet?.endMinute ?? null,
          who.userId,
        ]);
      }
      const { rows } = await client.query<ArrivalWatchRow>('SELECT * FROM arrival_watches WHERE user_id = $1', [who.userId]);
      return notifySettingOf(rows[0] as ArrivalWatchRow);
    });
  }

  async claimDueArrivalWatches(now: Date, owner: string, leaseUntil: Date, nextAt: Date, limit: number): Promise<ArrivalWatch[]> {
    // SKIP LOCKED: instances claiming at the same moment each take different approvers instead of queueing.
    const { rows } = await this.#query<ArrivalWatchRow>(
      `UPDATE arrival_watches SET lease_owner = $1, lease_until = $2, due_at = next_at, next_at = $3
       WHERE user_id IN (
         SELECT user_id FROM arrival_watches WHERE enabled = 1 AND next_at <= $4 AND (lease_until IS NULL OR lease_until <= $4)
         ORDER BY next_at LIMIT $5 FOR UPDATE SKIP LOCKED)
       AND enabled = 1 AND next_at <= $4 AND (lease_until IS NULL OR lease_until <= $4)
       RETURNING *`,
      [owner, leaseUntil.getTime(), nextAt.getTime(), now.getTime(), limit],
    );
    return rows.map(arrivalWatchOf);
  }

  async arrivalWatchDue(now: Date): Promise<boolean> {
    const { rows } = await this.#query(
      `SELECT 1 FROM arrival_watches WHERE enabled = 1 AND next_at <= $1 AND (lease_until IS NULL OR lease_until <= $1) LIMIT 1`,
      [now.getTime()],
    );
    return rows.length > 0;
  }

  async renewArrivalLeases(owner: string, userIds: readonly string[], until: Date): Promise<number> {
    if (userIds.length === 0) return 0;
    const result = await this.#query('UPDATE arrival_watches SET lease_until = $1 WHERE lease_owner = $2 AND user_id = ANY($3::TEXT[])', [
      until.getTime(),
      owner,
      [...userIds],
    ]);
    return result.rowCount ?? 0;
  }

  async pauseArrivalWatch(userId: string, owner: string, claimedNextAt: Date): Promise<boolean> {
    const result = await this.#query(
      `UPDATE arrival_watches SET next_at = NULL, prime = 1, lease_owner = NULL, lease_until = NULL
       WHERE user_id = $1 AND lease_owner = $2 AND next_at = $3`,
      [userId, owner, claimedNextAt.getTime()],
    );
    return result.rowCount === 1;
  }

  async arrivalItems(userId: string): Promise<KeptArrival[]> {
    const { rows } = await this.#query<ArrivalItemRow>('SELECT * FROM arrival_items WHERE user_id = $1', [userId]);
    return rows.map(keptArrivalOf);
  }

  async saveArrivalCheck(userId: string, owner: string, at: Date, c: ArrivalCheckChanges): Promise<{ announced: string[] } | undefined> {
    return this.#transaction(async (client) => {
      // The lease check, and the priming flag cleared when it primed: the row stays locked to the commit.
      const held = await client.query(
        'UPDATE arrival_watches SET prime = CASE WHEN $1 THEN 0 ELSE prime END WHERE user_id = $2 AND lease_owner = $3',
        [c.primed, userId, owner],
      );
      if (held.rowCount !== 1) return undefined;
      const t = at.getTime();
      for (const a of c.add)
        await client.query(ADD_ARRIVAL, [userId, a.summary.approvalId, a.status, summaryText(a.summary), '[]', t, null, null]);
      for (const id of c.back)
        await client.query('UPDATE arrival_items SET gone_at = NULL WHERE user_id = $1 AND approval_id = $2', [userId, id]);
      for (const g of c.gone)
        await client.query(
          'UPDATE arrival_items SET gone_at = $1, decided = COALESCE(decided, $2) WHERE user_id = $3 AND approval_id = $4 AND gone_at IS NULL',
          [t, g.decided === undefined ? null : decidedText(g.decided), userId, g.approvalId],
        );
      const announced: string[] = [];
      const m = c.announce;
      if (m === undefined) return { announced };
      for (const a of m.approvals) {
        const position = announced.length < m.listed ? announced.length : null;
        const actions = JSON.stringify(a.actions);
        const id = a.summary.approvalId;
        // A held one moves to the message; a new one is inserted, unless a check before this one recorded it.
        const moved = await client.query(
          `UPDATE arrival_items SET status = 'announced', actions = $1, message_id = $2, position = $3
           WHERE user_id = $4 AND approval_id = $5 AND status = 'held'`,
          [actions, m.messageId, position, userId, id],
        );
        const changed =
          moved.rowCount === 1 ||
          (await client.query(ADD_ARRIVAL, [userId, id, 'announced', summaryText(a.summary), actions, t, m.messageId, position]))
            .rowCount === 1;
        if (changed) announced.push(id);
      }
      if (announced.length > 0)
        await client.query(
          'INSERT INTO arrival_messages (id, user_id, team_id, more, after_quiet, at, gone) VALUES ($1, $2, $3, $4, $5, $6, 0)',
          [m.messageId, userId, m.teamId, Math.max(0, announced.length - m.listed), m.afterQuiet ? 1 : 0, t],
        );
      return { announced };
    });
  }

  async setArrivalMessage(messageId: string, channel: string, ts: string): Promise<void> {
    await this.#query('UPDATE arrival_messages SET channel = $1, ts = $2 WHERE id = $3', [channel, ts, messageId]);
  }

  async forgetArrivalMessage(messageId: string): Promise<void> {
    await this.#query('UPDATE arrival_messages SET gone = 1 WHERE id = $1', [messageId]);
  }

  async arrivalMessages(messageIds: readonly string[]): Promise<KeptArrivalMessage[]> {
    if (messageIds.length === 0) return [];
    const ids = [...messageIds];
    const messages = await this.#query<ArrivalMessageRow>(
      'SELECT * FROM arrival_messages WHERE id = ANY($1::TEXT[]) AND gone = 0 AND ts IS NOT NULL',
      [ids],
    );
    if (messages.rows.length === 0) return [];
    const items = await this.#query<ArrivalItemRow>(
      'SELECT * FROM arrival_items WHERE message_id = ANY($1::TEXT[]) AND position IS NOT NULL',
      [messages.rows.map((r) => r.id)],
    );
    return keptMessagesOf(messages.rows, items.rows);
  }

  async decideArrival(approvalId: string, decided: ArrivalDecided): Promise<KeptArrivalMessage[]> {
    await this.#query('UPDATE arrival_items SET decided = $1 WHERE approval_id = $2 AND decided IS NULL', [
      decidedText(decided),
      approvalId,
    ]);
    const { rows } = await this.#query<{ message_id: string }>(
      'SELECT DISTINCT message_id FROM arrival_items WHERE approval_id = $1 AND message_id IS NOT NULL AND position IS NOT NULL',
      [approvalId],
    );
    return this.arrivalMessages(rows.map((r) => r.message_id));
  }

  async pruneArrivals(before: Date): Promise<number> {
    return this.#transaction(async (client) => {
      const items = await client.query('DELETE FROM arrival_items WHERE gone_at < $1', [before.getTime()]);
      await client.query(
        `DELETE FROM arrival_messages WHERE at < $1
         AND NOT EXISTS (SELECT 1 FROM arrival_items WHERE arrival_items.message_id = arrival_messages.id)`,
        [before.getTime()],
      );
      return items.rowCount ?? 0;
    });
  }

  async claimRelinkNotice(who: Principal, linkedAt: Date, at: Date): Promise<boolean> {
    const result = await this.#query(
      `INSERT INTO relink_notices (user_id, linked_at, at) VALUES ($1, $2, $3)
       ON CONFLICT (user_id) DO UPDATE SET linked_at = excluded.linked_at, at = excluded.at
       WHERE relink_notices.linked_at <> excluded.linked_at`,
      [who.userId, linkedAt.getTime(), at.getTime()],
    );
    return result.rowCount === 1;
  }

  async recordCollectStep(e: CollectEvent): Promise<void> {
    // Only ever INSERT: the trail is evidence, and nothing here updates or deletes its rows.
    await this.#query(INSERT_AUDIT_PG, collectValues(this.#auditIds.next(e.at), e));
  }

  async listCollectAttempts(f: AuditFilter): Promise<CollectAttempt[]> {
    const { rows } = await this.#query<CollectRow>(
      `SELECT e.*, w.attempt_id AS watch_id, w.runs AS watch_runs, w.note AS watch_note, w.done_at AS watch_done
       FROM audit_events e LEFT JOIN collect_watches w ON w.attempt_id = e.subject
       WHERE e.kind = 'collection' AND e.subject IN (
         SELECT subject FROM audit_events
         WHERE kind = 'collection' AND ($1::TEXT IS NULL OR team_id = $1) AND ($2::TEXT IS NULL OR channel_id = $2)
           AND ($5::TEXT IS NULL OR user_id = $5)
         GROUP BY subject HAVING ($3::BIGINT IS NULL OR MAX(at) >= $3)
         ORDER BY MAX(id) DESC LIMIT $4)`,
      [f.teamId ?? null, f.channelId ?? null, f.since?.getTime() ?? null, f.limit, f.userId ?? null],
    );
    return foldAttempts(rows);
  }

  async recordDecisionStep(e: DecisionEvent): Promise<void> {
    await this.#query(INSERT_AUDIT_PG, decisionValues(this.#auditIds.next(e.at), e));
  }

  async listDecisions(f: AuditFilter): Promise<DecisionRecord[]> {
    const { rows } = await this.#query<AuditRow>(
      `SELECT e.* FROM audit_events e
       WHERE e.kind = 'decision' AND e.subject IN (
         SELECT subject FROM audit_events
         WHERE kind = 'decision' AND ($1::TEXT IS NULL OR team_id = $1) AND ($2::TEXT IS NULL OR user_id = $2)
         GROUP BY subject HAVING ($3::BIGINT IS NULL OR MAX(at) >= $3)
         ORDER BY MAX(id) DESC LIMIT $4)`,
      [f.teamId ?? null, f.userId ?? null, f.since?.getTime() ?? null, f.limit],
    );
    return foldDecisions(rows);
  }

  async claimDecision(c: Parameters<Store['claimDecision']>[0]): Promise<DecisionClaim> {
    for (;;) {
      // The insert is the claim: on any number of instances, one caller takes an approval that is
      // free. A hold that has given way is taken with takeExpiredDecision, once what became of it is recorded.
      const won = await this.#query(
        `INSERT INTO decision_claims (approval_id, decision_id, team_id, user_id, action, state, claimed_at, until)
         VALUES ($1, $2, $3, $4, $5, 'sending', $6, $7)
         ON CONFLICT (approval_id) DO NOTHING
         RETURNING decision_id`,
        [c.approvalId, c.decisionId, c.teamId, c.userId, c.action, c.at.getTime(), c.until.getTime()],
      );
      const holder =
        won.rowCount === 1
          ? undefined
          : (await this.#query<DecisionHoldRow>('SELECT * FROM decision_claims WHERE approval_id = $1', [c.approvalId])).rows[0];
      const outcome = decisionClaimOutcome(won.rowCount === 1, holder === undefined ? undefined : decisionHoldOf(holder));
      if (outcome !== 'again') return outcome;
    }
  }

  async settleDecision(approvalId: string, decisionId: string, state: 'done' | 'unsettled', at: Date, until: Date): Promise<boolean> {
    const result = await this.#query(
      'UPDATE decision_claims SET state = $1, until = $2, settled_at = $3 WHERE approval_id = $4 AND decision_id = $5',
      [state, until.getTime(), at.getTime(), approvalId, decisionId],
    );
    return result.rowCount === 1;
  }

  async extendDecision(approvalId: string, decisionId: string, until: Date): Promise<boolean> {
    const result = await this.#query(
      "UPDATE decision_claims SET until = $1 WHERE approval_id = $2 AND decision_id = $3 AND state = 'sending'",
      [until.getTime(), approvalId, decisionId],
    );
    return result.rowCount === 1;
  }

  async releaseDecision(approvalId: string, decisionId: string): Promise<void> {
    await this.#query('DELETE FROM decision_claims WHERE approval_id = $1 AND decision_id = $2', [approvalId, decisionId]);
  }

  async decisionRecord(decisionId: string): Promise<DecisionRecord | undefined> {
    const { rows } = await this.#query<AuditRow>("SELECT * FROM audit_events WHERE kind = 'decision' AND subject = $1", [decisionId]);
    return foldDecisions(rows)[0];
  }

  async expiredDecisionHolds(now: Date, limit: number): Promise<Array<{ approvalId: string; hold: DecisionHold }>> {
    const { rows } = await this.#query<DecisionHoldRow>(
      "SELECT * FROM decision_claims WHERE state <> 'done' AND until <= $1 ORDER BY until LIMIT $2",
      [now.getTime(), limit],
    );
    return rows.map((r) => ({ approvalId: r.approval_id, hold: decisionHoldOf(r) }));
  }

  async takeExpiredDecision(...[approvalId, from, now, until, to]: Parameters<Store['takeExpiredDecision']>): Promise<boolean> {
    const result =
      to === undefined
        ? await this.#query(
            "UPDATE decision_claims SET until = $1 WHERE approval_id = $2 AND decision_id = $3 AND state <> 'done' AND until <= $4",
            [until.getTime(), approvalId, from, now.getTime()],
          )
        : await this.#query(
            `UPDATE decision_claims SET decision_id = $1, team_id = $2, user_id = $3, action = $4, state = 'sending',
               claimed_at = $5, until = $6, settled_at = NULL
             WHERE approval_id = $7 AND decision_id = $8 AND state <> 'done' AND until <= $5`,
            [to.decisionId, to.teamId, to.userId, to.action, now.getTime(), until.getTime(), approvalId, from],
          );
    return result.rowCount === 1;
  }

  async decisionHolds(approvalIds: readonly string[]): Promise<Map<string, DecisionHold>> {
    if (approvalIds.length === 0) return new Map();
    const { rows } = await this.#query<DecisionHoldRow>('SELECT * FROM decision_claims WHERE approval_id = ANY($1::TEXT[])', [
      [...approvalIds],
    ]);
    return new Map(rows.map((r) => [r.approval_id, decisionHoldOf(r)]));
  }

  async claimCooldown(c: Parameters<Store['claimCooldown']>[0]): Promise<CooldownClaim> {
    const won = await this.#query(
      `INSERT INTO collect_cooldowns (team_id, target, user_id, channel_id, attempt_id, at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (team_id, target) DO UPDATE SET user_id = excluded.user_id, channel_id = excluded.channel_id,
         attempt_id = excluded.attempt_id, at = excluded.at
       WHERE collect_cooldowns.at <= $7
       RETURNING attempt_id`,
      [c.teamId, c.target, c.userId, c.channelId, c.attemptId, c.at.getTime(), cooldownHorizon(c.at, c.cooldownMs)],
    );
    if (won.rowCount === 1) return cooldownOutcome(true);
    return cooldownOutcome(false, await this.#cooldownHolder(c.teamId, c.target));
  }

  async peekCooldown(teamId: string, target: string, at: Date, cooldownMs: number): Promise<CooldownHolderOf | undefined> {
    return heldBy(await this.#cooldownHolder(teamId, target), at, cooldownMs);
  }

  async #cooldownHolder(teamId: string, target: string): Promise<CooldownHolderOf | undefined> {
    const { rows } = await this.#query<CooldownHolderRow>(
      'SELECT user_id, channel_id, at, attempt_id FROM collect_cooldowns WHERE team_id = $1 AND target = $2',
      [teamId, target],
    );
    return rows[0] === undefined ? undefined : cooldownHolderOf(rows[0]);
  }

  async releaseCooldown(teamId: string, target: string, attemptId: string): Promise<void> {
    await this.#query('DELETE FROM collect_cooldowns WHERE team_id = $1 AND target = $2 AND attempt_id = $3', [teamId, target, attemptId]);
  }

  async releaseCooldownsOf(teamId: string, attemptId: string): Promise<number> {
    const { rowCount } = await this.#query('DELETE FROM collect_cooldowns WHERE team_id = $1 AND attempt_id = $2', [teamId, attemptId]);
    return rowCount ?? 0;
  }

  async createWatch(w: RunWatch): Promise<void> {
    await this.#query(
      `INSERT INTO collect_watches (attempt_id, team_id, user_id, channel_id, message_ts, query, runs, started_at, deadline, next_poll_at, interval_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        w.attemptId,
        w.teamId,
        w.userId,
        w.channelId,
        w.messageTs,
        JSON.stringify(w.query),
        JSON.stringify(w.runs),
        w.startedAt.getTime(),
        w.deadline.getTime(),
        w.nextPollAt.getTime(),
        w.intervalMs,
      ],
    );
  }

  async claimDueWatches(now: Date, owner: string, leaseUntil: Date, limit: number): Promise<RunWatch[]> {
    const { rows } = await this.#query<WatchRow>(
      `UPDATE collect_watches SET lease_owner = $1, lease_until = $2
       WHERE attempt_id IN (
         SELECT attempt_id FROM collect_watches
         WHERE done_at IS NULL AND next_poll_at <= $3 AND (lease_until IS NULL OR lease_until <= $3)
         ORDER BY next_poll_at LIMIT $4 FOR UPDATE SKIP LOCKED)
       AND done_at IS NULL AND (lease_until IS NULL OR lease_until <= $3)
       RETURNING *`,
      [owner, leaseUntil.getTime(), now.getTime(), limit],
    );
    return rows.map(watchOf);
  }

  async setWatchMessage(attemptId: string, messageTs: string): Promise<void> {
    await this.#query("UPDATE collect_watches SET message_ts = $1 WHERE attempt_id = $2 AND message_ts = ''", [messageTs, attemptId]);
  }

  async saveWatch(w: RunWatch, owner: string): Promise<boolean> {
    const result = await this.#query(
      `UPDATE collect_watches SET runs = $1, next_poll_at = $2, interval_ms = $3, done_at = $4, note = $5, lease_owner = NULL, lease_until = NULL
       WHERE attempt_id = $6 AND lease_owner = $7`,
      [JSON.stringify(w.runs), w.nextPollAt.getTime(), w.intervalMs, w.doneAt?.getTime() ?? null, w.note ?? null, w.attemptId, owner],
    );
    return result.rowCount === 1;
  }

  async rotateKeys(): Promise<number> {
    return this.#transaction(async (client) => {
      // FOR UPDATE: a rotation on one instance and a link on another do not overwrite each other.
      const { rows } = await client.query<TokenRow>('SELECT * FROM tokens WHERE key_id <> $1 FOR UPDATE', [this.#keys.current.keyId]);
      for (const r of rows) {
        await client.query('UPDATE tokens SET ciphertext = $1, key_id = $2 WHERE team_id = $3 AND user_id = $4 AND command = $5', [
          reencrypted(r, this.#keys),
          this.#keys.current.keyId,
          r.team_id,
          r.user_id,
          r.command,
        ]);
      }
      return rows.length;
    });
  }

  async keyUsage(): Promise<KeyUsage[]> {
    const { rows } = await this.#query<{ key_id: string; tokens: string }>('SELECT key_id, COUNT(*) AS tokens FROM tokens GROUP BY key_id');
    const groups: KeyGroup[] = [];
    for (const g of rows) {
      const sample = await this.#query<TokenRow>('SELECT * FROM tokens WHERE key_id = $1 ORDER BY user_id LIMIT 3', [g.key_id]);
      groups.push({ keyId: g.key_id, tokens: Number(g.tokens), sample: sample.rows });
    }
    return keyUsageOf(groups, this.#keys);
  }

  async rememberSignature(signature: string, until: Date, now: Date): Promise<boolean> {
    // One statement: the primary key decides between instances. A row still in force makes the
    // upsert change nothing (a replay); one past its time, not pruned yet, is taken over.
    const result = await this.#query(
      `INSERT INTO slack_signatures_by_expiry (signature, expires_at) VALUES ($1, $2)
       ON CONFLICT (expires_at, signature) DO UPDATE SET expires_at = excluded.expires_at WHERE slack_signatures_by_expiry.expires_at < $3`,
      [signature, until.getTime(), now.getTime()],
    );
    // Pruning is housekeeping: its failure must not turn an accepted request into an error.
    if (this.#pruning.due(now))
      await this.#query('DELETE FROM slack_signatures_by_expiry WHERE expires_at < $1', [now.getTime()]).catch(() => undefined);
    return result.rowCount === 1;
  }

  async ping(): Promise<void> {
    await this.#query('SELECT version FROM schema_migrations ORDER BY version DESC LIMIT 1');
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  /** A query whose failure to reach the database says so as a StoreUnavailableError. */
  #query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    return this.#pool.query<R>(text, values).catch((error: unknown) => {
      throw asUnavailable(error);
    });
  }

  #connect(): Promise<pg.PoolClient> {
    return this.#pool.connect().catch((error: unknown) => {
      throw asUnavailable(error);
    });
  }

  async #transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
