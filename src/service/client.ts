/**
 * The Command Service client: the only code in the app that speaks HTTP to the service.
 *
 * Three parts, composed here: the transport (transport.ts: one undici Pool per client keeps
 * connections alive across users and commands, the token being a header, so sharing a connection
 * shares nothing between users; timeouts, the deadline, the retry policy, bodies within limits),
 * decoding (decode.ts and status.ts: every answer, whatever its status or format, comes out as typed
 * data or a typed ServiceError) and the commands (commands.ts: what each checks, sends and reads).
 */

import type { Dispatcher } from 'undici';
import { type LogFields, type Logger, silentLogger } from '../runtime/logger.js';
import type { Secret } from '../runtime/secret.js';
import { type CallOptions, Commands, type LoginCredentials } from './commands.js';
import type { DecisionAnswer, DecisionCall, DecisionValues } from './decision-call.js';
import { createOfferings, NOT_OFFERED_RECHECK_MS, type OptionalCommand } from './offered.js';
import type { ApprovalQuery, CollectQuery, RequestItemsPageQuery, RequestItemsSelector } from './query.js';
import type { ApprovalDetails, ApprovalsPage, CollectionResult, RequestItemsPage, RunStatus } from './schemas.js';
import { createTransport, type ServiceTimeouts, type TrustedAppCredentials } from './transport.js';

export { type CallOptions, DETAILS_MAX_BODY_BYTES, type LoginCredentials } from './commands.js';
export { NOT_OFFERED_RECHECK_MS, type OptionalCommand } from './offered.js';
export { DEFAULT_TIMEOUTS, type ServiceTimeouts, type TrustedAppCredentials } from './transport.js';

export type CommandName =
  | 'findApprovals'
  | 'collectEntitlements'
  | 'getRunStatus'
  | 'loginUser'
  | 'logoutUser'
  | 'getApprovalDetails'
  | 'getRequestItems'
  | 'loginTrustedApp';

export interface ServiceClientOptions {
  /** base_url of the spec: requests go to `<baseUrl>/command.submit`. */
  baseUrl: string;
  /** Where requests go; a keep-alive Pool to baseUrl's origin when omitted (tests pass a MockAgent). */
  dispatcher?: Dispatcher;
  timeouts?: Partial<ServiceTimeouts> | undefined;
  /** Sockets kept open to the service. */
  connections?: number;
  /** A body larger than this is refused rather than buffered. */
  maxBodyBytes?: number;
  logger?: Logger;
  /** Told of every call: the command, the HTTP status ("error" when none came), seconds taken. */
  onCall?: (command: string, status: number | 'error', seconds: number) => void;
  /** The clock for remembering what the service does not offer (milliseconds); Date.now by default. */
  now?: () => number;
  /** How long a command found not offered is not asked for again; an hour by default. */
  notOfferedRecheckMs?: number;
}

export interface ServiceClient {
  findApprovals(query: ApprovalQuery, token: Secret, options?: CallOptions): Promise<ApprovalsPage>;
  /** Starts work on the service: never retried. */
  collectEntitlements(query: CollectQuery, token: Secret, options?: CallOptions): Promise<CollectionResult>;
  getRunStatus(runId: string, token: Secret, options?: CallOptions): Promise<RunStatus>;
  /** Returns the new token; the password is sent once, in the body, and kept nowhere. */
  loginUser(credentials: LoginCredentials, options?: CallOptions): Promise<Secret>;
  logoutUser(token: Secret, options?: CallOptions): Promise<void>;
  /** An application token (acts for nobody until a call names auth-user-id); the secret goes in a header, once. */
  loginTrustedApp(credentials: TrustedAppCredentials, options?: CallOptions): Promise<Secret>;
  /** One approval with what can be done to it; NotVisibleError when the user may not see it. */
  getApprovalDetails(approvalId: string, token: Secret, options?: CallOptions): Promise<ApprovalDetails>;
  /** A page of what the request behind an approval (or a request by id) asks for. */
  getRequestItems(
    selector: RequestItemsSelector,
    page: RequestItemsPageQuery,
    token: Secret,
    options?: CallOptions,
  ): Promise<RequestItemsPage>;
  /**
   * The operator's decision call (DECISION_REQUEST) for one approval: `values` checked, then put in
   * its template, each escaped for where it goes. Deciding is not idempotent, so it is never sent
   * twice by the client, whatever happens to the connection. A 2xx is an answer, not a decision made:
   * a proxy may answer 200 for nothing, a service 204 having done nothing, so getApprovalDetails
   * afterwards says what happened. Any other status is a typed ServiceError.
   */
  decide(call: DecisionCall, values: DecisionValues, token: Secret, options?: CallOptions): Promise<DecisionAnswer>;
  /**
   * False once the service answered that it does not offer the command (NotOfferedError), until
   * NOT_OFFERED_RECHECK_MS has passed; meanwhile calls to it fail at once without a request.
   */
  offers(command: OptionalCommand): boolean;
  /** The same client, its log lines carrying these fields too (the request a call is made for). */
  withLogFields(fields: LogFields): ServiceClient;
  close(): Promise<void>;
}

export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const transport = createTransport(options);
  // One service behind one client: what it does not offer is remembered here, for every user.
  const offered = createOfferings(options.now ?? Date.now, options.notOfferedRecheckMs ?? NOT_OFFERED_RECHECK_MS);
  return new Commands(transport, offered, options.logger ?? silentLogger);
}
