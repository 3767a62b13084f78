/**
 * The one place where failures become words for users. Each class of failure gets one clear,
 * ephemeral message saying what happened and what to do; the matching log line (with detail,
 * never a token) is chosen here too, so the two cannot drift apart. What the service said, and
 * what the user typed, is quoted as rich text: shown exactly, never read as markup.
 */

import type { Invalid } from '../parse/result.js';
import { type Slash, slashFor } from '../parse/slash.js';
import { AppTokenRefusedError, type LinkMode, LinkOutdatedError, RefusedForUserError } from '../service/credentials.js';
import { type AnyServiceError, isServiceError, type ServiceUnavailableError } from '../service/errors.js';
import { type ServiceCommandName, StoreUnavailableError } from '../store/types.js';
import { actions, button, context, type Message } from './blocks.js';
import { commandWords } from './commands.js';
import { RELINK_ACTION } from './link.js';
import { code, emoji, md, oneLine, type Paragraph, type Run, richMessage } from './rich.js';

export interface FailureContext {
  slash: Slash;
  command: ServiceCommandName;
  /** Slack user id: for the log, never shown (an approver reads no raw ids or admin commands). */
  userId: string;
  /** Correlates the message with the log line. */
  reference: string;
  /** Value for a "Link again" button that replays the query after linking; none when absent. */
  relink?: string | undefined;
  /** How this installation links people (the adapter fills it in); users' own tokens when absent. */
  linkMode?: LinkMode | undefined;
}

export interface Translated {
  message: Message;
  log: { level: 'info' | 'warn' | 'error'; event: string; detail: Record<string, unknown> };
}

function message(paragraphs: Paragraph[], note?: string): Message {
  return note ? richMessage(paragraphs, context(note)) : richMessage(paragraphs);
}

/**
 * How to link: the user with `login`, or their Slack admins for them; in the trusted mode, once, by
 * who they are. In the user's words: the admins' command line (and the raw Slack id it takes) is
 * theirs, in docs/operating.md.
 */
export function linkInstructions(ctx: Pick<FailureContext, 'command' | 'linkMode'>): string {
  if (ctx.linkMode === 'trusted-app')
    return `Type \`${slashFor(ctx.command)} login\` and sign in once with your Command Service username and password (countersign remembers who you are, never your password), or ask your Slack admins to link you.`;
  return `Type \`${slashFor(ctx.command)} login\` to link your account, or ask your Slack admins to link it for you.`;
}

export function renderInvalid(invalid: Invalid, slash: Slash): Message {
  const paragraphs: Paragraph[] = [[emoji('raised_hand'), ' ', oneLine(invalid.problem, 600)]];
  if (invalid.suggestion) paragraphs.push(['Did you mean ', code(oneLine(invalid.suggestion, 40)), '?']);
  paragraphs.push(['Try: ', code(oneLine(invalid.example, 200))]);
  return message(paragraphs, `Type \`${slash} help\` for everything ${slash} understands. Nothing was sent to the Command Service.`);
}

export function renderNotLinked(ctx: Pick<FailureContext, 'userId' | 'command' | 'slash' | 'linkMode'>): Message {
  return message([
    md(`:link: Your Slack account is not linked to the Command Service yet, so countersign cannot ${commandWords(ctx.command)} for you.`),
    md(linkInstructions(ctx)),
  ]);
}

/** The controls that only the person they were made for may use, by what each does. */
export type OwnedControl = 'page' | 'full-list' | 'confirm' | 'cancel';

const OWNED: Record<OwnedControl, (owner: string) => string> = {
  page: (owner) => `Only ${owner} can page through these approvals: they are ${owner}’s. Type \`/approvals\` to see your own.`,
  'full-list': (owner) => `Only ${owner} can open this list: it is ${owner}’s digest. Type \`/approvals\` to see your own approvals.`,
  confirm: (owner) => `Only ${owner} can confirm this collection: ${owner} asked for it. Type \`/collect\` to start one yourself.`,
  cancel: (owner) => `Only ${owner} can cancel this collection: ${owner} asked for it.`,
};

/** Someone pressed a control that was made for another person: what it does, and whose it is. Nothing was done. */
export function renderNotYours(ownerId: string, control: OwnedControl): Message {
  return message([md(OWNED[control](`<@${ownerId}>`))]);
}

export function renderUnreadableButton(slash: Slash): Message {
  return message([md(`This button no longer works (it may come from an older version of countersign). Type \`${slash}\` again.`)]);
}

/** Adds the one-click way back: the button opens the sign-in modal and then re-runs the query. */
function withRelink(m: Message, value: string | undefined): Message {
  if (value === undefined) return m;
  return {
    ...m,
    blocks: [...m.blocks, actions('account:relink', [button({ actionId: RELINK_ACTION, text: 'Link again', value, style: 'primary' })])],
  };
}

/** What every service failure's words are made from: the error, who asked for what, and the log's detail. */
interface Situation<E extends AnyServiceError = AnyServiceError> {
  error: E;
  ctx: FailureContext;
  /** "Reference `…`.", for messages that ask the user to pass it on. */
  ref: string;
  detail: Record<string, unknown>;
  /** The failure came from starting a collection, which may or may not have started. */
  started: boolean;
  /** The service's own words, quoted exactly; or ours when it gave none. */
  says: (otherwise: Run[]) => Run[];
}

type ByKind = { [K in AnyServiceError['kind']]: (s: Situation<Extract<AnyServiceError, { kind: K }>>) => Translated };

export function translateFailure(error: unknown, ctx: FailureContext): Translated {
  const ref = `Reference \`${oneLine(ctx.reference, 40)}\`.`;
  if (error instanceof StoreUnavailableError) return storeUnavailable(error, ref);
  if (!isServiceError(error)) return internalError(error, ref);
  const situation: Situation = {
    error,
    ctx,
    ref,
    detail: {
      kind: error.kind,
      status: error.status,
      command: error.command,
      serviceMessage: error.serviceMessage,
      queryString: error.queryString,
    },
    started: ctx.command === 'collectEntitlements',
    says: (otherwise) => (error.serviceMessage ? ['The Command Service says: “', oneLine(error.serviceMessage, 500), '”'] : otherwise),
  };
  if (error instanceof LinkOutdatedError) return linkOutdated(situation);
  if (error instanceof RefusedForUserError) return refusedForUser({ ...situation, error });
  return (BY_KIND[error.kind] as (s: Situation) => Translated)(situation);
}

function storeUnavailable(error: StoreUnavailableError, ref: string): Translated {
  return {
    message: message(
      [
        md(
          ':floppy_disk: countersign cannot reach its own database right now, so it could not look up your link. Nothing was sent to the Command Service; try again in a minute.',
        ),
      ],
      ref,
    ),
    log: { level: 'error', event: 'store unavailable', detail: { error: error.message } },
  };
}

function internalError(error: unknown, ref: string): Translated {
  return {
    message: message(
      [md(':boom: Something went wrong inside countersign. It has been logged; please tell your Slack admins if it keeps happening.')],
      ref,
    ),
    log: { level: 'error', event: 'internal error', detail: { error } },
  };
}

/** Expected once per person after the switch to the trusted mode: news, not an error. */
function linkOutdated({ ctx, detail }: Situation): Translated {
  return {
    message: withRelink(
      message([
        md(
          ':link: countersign now acts for you in a way that lasts: sign in once more with your Command Service username and password, and you will not be asked again.',
        ),
        md(`Your earlier link was a token, and it has expired. ${linkInstructions(ctx)}`),
      ]),
      ctx.relink,
    ),
    log: { level: 'info', event: 'token from before the trusted mode expired: asked to link once more', detail },
  };
}

/** About the user, never countersign's token: the service does not let them run the command, or does not know them. */
function refusedForUser({ error, ctx, detail, says }: Situation<RefusedForUserError>): Translated {
  const paragraphs: Paragraph[] = error.commandOnly
    ? [
        [
          emoji('no_entry'),
          ' The Command Service does not let your account ',
          code(oneLine(error.serviceUser, 100)),
          ` ${commandWords(ctx.command)}.`,
        ],
        says([]),
        md(
          'Which commands you may use is up to the Command Service: an administrator of the service grants them (ask your identity team). If you sign in to the service under another name now, link again.',
        ),
      ]
    : [
        [emoji('no_entry'), ' The Command Service refused to act for your account ', code(oneLine(error.serviceUser, 100)), '.'],
        says([]),
        md('If you sign in to the service under another name now, link again; otherwise ask your identity team.'),
      ];
  return {
    message: withRelink(message(paragraphs.filter((p) => p.length > 0)), ctx.relink),
    log: {
      level: 'info',
      event: error.commandOnly
        ? 'service does not let the linked identity run the command'
        : 'service refused to act for the linked identity',
      detail: { ...detail, serviceUser: error.serviceUser },
    },
  };
}

/** The other service failures, one entry per kind: TypeScript checks that every kind has its words. */
const BY_KIND: ByKind = {
  // Its sign-in refused, or every token it is given: the same to the user, who can do nothing about either.
  'app-sign-in': ({ error, ref, detail, started }) => ({
    message: message(
      [
        md(
          `:lock: The Command Service is refusing countersign’s own sign-in, so countersign cannot ask it anything for you right now. ${started ? 'Nothing was started.' : 'Nothing was done in the service for you.'}`,
        ),
        md(
          'This is not something you can fix: an administrator needs to look at how countersign signs in to the service (countersign’s log says what to check). It works again as soon as they have.',
        ),
      ],
      ref,
    ),
    // The refusal itself is logged once, as an error, where it happens; each answer is noted only.
    log: {
      level: 'info',
      event:
        error instanceof AppTokenRefusedError
          ? 'the service refuses countersign’s application token: answered without acting for the user'
          : 'trusted-application sign-in refused: answered without calling',
      detail,
    },
  }),
  'invalid-token': ({ error, ctx, detail }) =>
    error.expired === false
      ? {
          message: withRelink(
            message([
              md(
                `:no_entry: Your token does not let you ${commandWords(error.command)}. Ask your identity team for that permission, or link a token that has it.`,
              ),
              md(linkInstructions(ctx)),
            ]),
            ctx.relink,
          ),
          log: { level: 'info', event: 'token not permitted', detail },
        }
      : {
          message: withRelink(
            message([
              md(':key: Your token is not valid or has expired, so the Command Service refused it. Link your account again:'),
              md(linkInstructions(ctx)),
            ]),
            ctx.relink,
          ),
          log: { level: 'info', event: 'token invalid or expired', detail },
        },
  'missing-parameter': ({ error, ctx, ref, detail, says }) => ({
    message: message(
      [
        [emoji('warning'), ' ', ...says(['The Command Service needs the parameter ', code(error.parameter), '.'])],
        whyMissing(error.parameter, ctx),
      ],
      ref,
    ),
    log: { level: 'warn', event: 'service wants a parameter', detail },
  }),
  'invalid-parameter': ({ error, ref, detail, says }) => ({
    message: message(
      [[emoji('warning'), ' The Command Service refused the request.', ...(error.serviceMessage ? [' ', ...says([])] : [])]],
      ref,
    ),
    log: { level: 'warn', event: 'service refused a parameter', detail },
  }),
  'no-eligible-collectors': ({ detail, says }) => ({
    message: message([
      [emoji('mag'), ' ', ...says(['No collector is eligible for that application.'])],
      ['Check the application’s name as the service spells it. Nothing was started.'],
    ]),
    log: { level: 'info', event: 'no eligible collectors', detail },
  }),
  conflict: ({ detail, says }) => ({
    message: message([
      [emoji('hourglass'), ' ', ...says(['That work is already queued.'])],
      ['Nothing new was started; try again once the queued run has begun.'],
    ]),
    log: { level: 'info', event: 'service conflict', detail },
  }),
  'not-visible': ({ detail, says }) => ({
    message: message([
      [emoji('see_no_evil'), ' ', ...says(['The Command Service could not retrieve that approval.'])],
      ['It may have been completed, reassigned or withdrawn, or it is not one you may see.'],
    ]),
    log: { level: 'info', event: 'approval not visible', detail },
  }),
  'not-offered': ({ error, detail }) => ({
    message: message([
      md(
        `:information_source: This Command Service does not let anyone ${commandWords(error.command)} (its administrators have switched it off), so countersign cannot do that here.`,
      ),
    ]),
    log: { level: 'info', event: 'command not offered', detail },
  }),
  'login-failed': (s) => serviceRefused(s),
  'not-found': (s) => serviceRefused(s),
  'service-unavailable': ({ error, ref, detail, started }) => ({
    message: message([md(unavailableLine(error, started))], ref),
    log: { level: 'warn', event: 'service unavailable', detail: { ...detail, reason: error.reason } },
  }),
  'unexpected-response': ({ error, ref, detail, started }) => {
    const mayHaveStarted = started ? ' The collection may have started: check before you run it again.' : '';
    return {
      message: message(
        [
          md(
            error.tooLargeBytes !== undefined
              ? `:warning: The Command Service’s answer was too large for countersign to read (over ${formatBytes(error.tooLargeBytes)}), so it cannot be shown here.${mayHaveStarted} It has been logged for your Slack admins.`
              : `:warning: The Command Service gave an answer countersign could not read.${mayHaveStarted} It has been logged for your Slack admins.`,
          ),
        ],
        ref,
      ),
      log: { level: 'error', event: 'unexpected service response', detail: { ...detail, detail: error.detail } },
    };
  },
};

function serviceRefused({ ref, detail, says }: Situation): Translated {
  return {
    message: message([[emoji('warning'), ' ', ...says(['The Command Service refused the request.'])]], ref),
    log: { level: 'warn', event: 'service refused', detail },
  };
}

/** Why a parameter the service wants was not sent, and who can do something about it. */
function whyMissing(parameter: string, ctx: FailureContext): Paragraph {
  if (parameter !== 'auth-user-id') return ['countersign cannot send that parameter; tell your Slack admins.'];
  // The trusted mode sends auth-user-id with every call for a linked identity: a token from before the mode sends none.
  if (ctx.linkMode === 'trusted-app')
    return md(
      `The service wants to know whom countersign acts for, and did not take what it was sent. If you have not signed in since countersign started acting for you as an application, type \`${slashFor(ctx.command)} login\` and sign in once; otherwise this is for your Slack admins to check in countersign’s trusted-application setup.`,
    );
  return ['This usually means the linked token belongs to an application, not to you. Link a token of your own.'];
}

/** Whether anything may have changed depends on whether the request can have got there, and on what it was. */
function unavailableLine(error: ServiceUnavailableError, started: boolean): string {
  const maybeStarted = started ? ' The collection may or may not have started: check before you run it again.' : ' Nothing was changed.';
  switch (error.reason) {
    case 'timeout':
      return `:hourglass_flowing_sand: The Command Service did not answer in time.${maybeStarted}`;
    case 'network':
      return `:electric_plug: The Command Service cannot be reached right now.${started ? ' Nothing was started.' : ''} Try again in a few minutes.`;
    case 'dropped':
      return started
        ? ':electric_plug: The connection to the Command Service dropped after the request went out, so the collection may have started: check `/collect history` and the service before you run it again.'
        : ':electric_plug: The connection to the Command Service dropped before it answered. Nothing was changed; try again in a few minutes.';
    case 'server-error':
      return `:warning: The Command Service failed while answering (status ${error.status ?? 'unknown'}).${maybeStarted} Try again; if it keeps failing, tell your identity team.`;
    case 'aborted':
      return `:hourglass_flowing_sand: The request to the Command Service was cancelled.${maybeStarted}`;
    case 'busy':
      return `:hourglass_flowing_sand: The Command Service is busy and turned the request away unread (status 429).${started ? ' Nothing was started.' : ''} Try again in a minute.`;
  }
}

/** 1048576 → "1 MiB", 8388608 → "8 MiB", 500000 → "488 KiB". */
function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}
