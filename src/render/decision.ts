/**
 * Deciding in chat, in words and Block Kit: one button per action the service lists (in the
 * Details modal), each saying what it does ("Decide: Accepted": the service's own name for the
 * action, after a verb, since workflows name their transitions as the states they end in), the
 * confirmation pushed over it (the approval, the request, who asked, the action, a comment field,
 * and a submit that names the action), and what came of it, as the service answered or, when it did
 * not, as it shows afterwards, with the comment that was sent. Never more than happened: "sent" is not "done", and a call whose answer
 * did not come is said to be just that. The service's words and the approver's are rich text or
 * plain_text, shown exactly. The Open link, when there is one, is on every outcome.
 */

import type { Button, KnownBlock, ModalView } from '@slack/types';
import type { DecideOutcome } from '../approvals/decide.js';
import type { CommentAsked, DecisionOffer } from '../approvals/decision-offer.js';
import type { DecisionAbout, DecisionChoiceWire, DecisionState, DecisionStateWire } from '../parse/decision.js';
import { isServiceError } from '../service/errors.js';
import { MAX_COMMENT_CHARS } from '../service/query.js';
import type { ApprovalDetails } from '../service/schemas.js';
import type { DecisionHold, DecisionRefusal } from '../store/types.js';
import type { TimeFrame } from '../time/frame.js';
import { readableInstant, readableTimestamp } from '../time/write.js';
import { type ApprovalLinks, actions, button, context, LIMITS, linkButton, type Message, plain, revealHidden, truncate } from './blocks.js';
import { detailsWires, shownBefore } from './details-controls.js';
import { bold, code, emoji, italic, md, oneLine, type Paragraph, type Run, richText, user } from './rich.js';

/** The most action buttons shown: beside Open, within an actions block's 25 elements. */
const MAX_ACTION_BUTTONS = 20;

export const DECISION_ACTIONS = {
  /** An action's button in the Details modal, numbered (Slack wants each of a block's ids once): pushes its confirmation. */
  choose: Array.from({ length: MAX_ACTION_BUTTONS }, (_, i) => `decision:choose:${i}`),
  /** "Open in the service" on a decision's views: a link, acked only. */
  open: 'decision:open',
} as const;

export const DECISION_CALLBACK = 'approval-decision';

/** Where the comment is typed, and where the modal shows what is wrong with it. */
export const COMMENT_FIELD = { block: 'decision:comment', action: 'value' } as const;

/** A decision made from chat, as a list or the Details modal shows it. */
export interface DecidedMark {
  action: string;
  at: Date;
  userId: string;
}

/** An approval decided from chat, as the lists show it. */
export function markOf(hold: DecisionHold): DecidedMark {
  return { action: hold.action, at: hold.settledAt ?? hold.at, userId: hold.userId };
}

/** Who reads a surface: their Slack id (to say "you") and their zone (times are written in it, named). */
export interface Reader {
  id: string;
  zone: string;
}

/**
 * "✅ Rejected by you from Slack, Sun 22 Nov 2026, 10:42 London time" (by @someone, for another's):
 * written as every other time of the surface it is on, not as a Slack date token beside them.
 */
export function decidedLine(mark: DecidedMark, reader: Reader): Paragraph {
  const by: Run[] = mark.userId === reader.id ? [' by you'] : [' by ', user(mark.userId)];
  return [emoji('white_check_mark'), ' ', bold(oneLine(mark.action, 60)), ...by, ' from Slack, ', readableInstant(mark.at, reader.zone)];
}

/**
 * The words of an action's button value, each cut so that the whole holds in a button's 2,000
 * characters, and where the click is checked from: a Details modal's button carries when the
 * Details were drawn (`t`: a click soon after is checked against countersign's records alone, a
 * later one with the service, approvals/choose.ts); a message's carries the approval's id (`a`),
 * which a modal keeps in its own metadata and a message cannot, and no time (a message may be
 * clicked hours later, so its click is always checked with the service).
 */
export function decisionChoiceValue(
  action: string,
  about: { requestName: string; requestedBy: string; workItemName: string },
  carried: { approvalId: string } | { shownAt: Date },
): string | undefined {
  const wire: DecisionChoiceWire = {
    ...('approvalId' in carried ? { a: carried.approvalId } : {}),
    x: action,
    ...(about.requestName ? { r: truncate(about.requestName, 150) } : {}),
    ...(about.requestedBy ? { b: truncate(about.requestedBy, 80) } : {}),
    ...(about.workItemName ? { n: truncate(about.workItemName, 80) } : {}),
    ...('shownAt' in carried ? { t: Math.floor(carried.shownAt.getTime() / 1000) } : {}),
  };
  const value = JSON.stringify(wire);
  return value.length <= LIMITS.buttonValue ? value : undefined;
}

const DECIDE = 'Decide: ';
const SEND = 'Send: ';

/**
 * An action's button: what it does, then the service's own name for the action, whatever the
 * workflow calls it ("Decide: Accepted", "Decide: Needs Info", "Decide: Escalate to Security").
 * Workflows name their transitions as the states they lead to, so the name alone reads as a state;
 * the verb makes it a button, and no name is translated, so none can be translated wrong.
 */
export function decisionButtonText(action: string): string {
  return `${DECIDE}${oneLine(action, LIMITS.buttonText - DECIDE.length)}`;
}

/**
 * The confirmation's submit: the action it sends, in Slack's 24 characters ("Send: Rejected"), the
 * name cut with an ellipsis past them (the modal says it whole). Slack draws a modal's submit in one
 * style whatever it does, so the words carry it.
 */
export function decisionSubmitText(action: string): string {
  return `${SEND}${oneLine(action, LIMITS.viewButton - SEND.length)}`;
}

/** One button per action the service lists, each saying what it does with the service's name for it, and Open beside them. */
export function decisionButtons(offer: DecisionOffer, d: ApprovalDetails, open: Button | undefined, shownAt: Date): KnownBlock[] {
  if (offer.kind !== 'actions') return open === undefined ? [] : [actions('details:open', [open])];
  const buttons: Button[] = [];
  for (const action of offer.actions.slice(0, MAX_ACTION_BUTTONS)) {
    const value = decisionChoiceValue(
      action,
      { requestName: d.requestName, requestedBy: d.requestedByName, workItemName: d.workItemName },
      { shownAt },
    );
    // An action whose name cannot be carried is one countersign cannot offer: the service still can.
    const actionId = DECISION_ACTIONS.choose[buttons.length] as string;
    if (value !== undefined) buttons.push(button({ actionId, text: decisionButtonText(action), value }));
  }
  return [actions('details:decide', [...buttons, ...(open === undefined ? [] : [open])])];
}

/** What the Details modal says of deciding it, below its buttons. */
export function decisionNote(offer: DecisionOffer | undefined, reader: Reader, hasOpen: boolean): KnownBlock {
  switch (offer?.kind) {
    case 'actions':
      return context(
        'Each Decide button names the action as the Command Service does; it asks you to confirm, with a comment, before anything is sent.',
      );
    case 'line-items':
      return context(
        hasOpen
          ? 'Each item of this request is decided on its own, in the service: Open in the service to decide them.'
          : 'Each item of this request is decided on its own, in the Command Service itself.',
      );
    case 'decided':
      return richText([
        decidedLine({ action: offer.hold.action, at: offer.hold.settledAt ?? offer.hold.at, userId: offer.hold.userId }, reader),
      ]);
    case 'not-theirs':
      return context(
        hasOpen
          ? 'It is not on your own list of pending approvals, so it is not yours to decide here: Open in the service to see it there.'
          : 'It is not on your own list of pending approvals, so it is not yours to decide here.',
      );
    case 'held':
      return richText([
        heldLine(offer.hold.userId, offer.hold.action, offer.hold.state === 'sending' ? 'sending' : 'unsettled', offer.hold.until, reader),
      ]);
    default:
      return context(
        hasOpen ? 'The decision is made in the service: Open in the service.' : 'The decision is made in the Command Service itself.',
      );
  }
}

function heldLine(holder: string, action: string, state: 'sending' | 'unsettled', until: Date, reader: Reader): Paragraph {
  const who: Run[] = holder === reader.id ? ['you'] : [user(holder)];
  return state === 'sending'
    ? [emoji('hourglass_flowing_sand'), ' A decision on it (', bold(oneLine(action, 60)), ', by ', ...who, ') is being sent right now.']
    : [
        emoji('grey_question'),
        ' A decision on it (',
        bold(oneLine(action, 60)),
        ', sent by ',
        ...who,
        ') is not shown taken by the service: check in the service. It can be decided here again after ',
        readableInstant(until, reader.zone),
        '.',
      ];
}

/** The confirmation's private_metadata, within 3,000 characters: the Details state gives way first (the page's query, then the response_url). */
export function encodeDecisionState(state: DecisionState): string {
  const base = {
    d: state.decisionId,
    x: state.action,
    ...(state.parentViewId === undefined ? {} : { v: state.parentViewId }),
    ...(state.about.requestName ? { r: truncate(state.about.requestName, 150) } : {}),
    ...(state.about.requestedBy ? { b: truncate(state.about.requestedBy, 80) } : {}),
    ...(state.about.step ? { n: truncate(state.about.step, 80) } : {}),
  };
  const wires = detailsWires(state.details);
  for (const s of wires) {
    const text = JSON.stringify({ ...base, s } satisfies DecisionStateWire);
    if (text.length <= LIMITS.privateMetadata) return text;
  }
  return JSON.stringify({ ...base, s: wires.at(-1) });
}

const CONFIRM_TITLE = { type: 'plain_text' as const, text: 'Confirm your decision' };
const OUTCOME_TITLE = { type: 'plain_text' as const, text: 'Your decision' };

/** The approval in a few lines: the request, the step and who asked, its id. */
function aboutLines(approvalId: string, about: DecisionAbout): Paragraph[] {
  const step: Run[] = [oneLine(about.step || 'Approval', 80)];
  if (about.requestedBy) step.push(' · requested by ', oneLine(about.requestedBy, 80));
  return [[bold(oneLine(about.requestName || '(unnamed request)', 150))], step, ['Approval id ', code(oneLine(approvalId, 120))]];
}

function modal(state: DecisionState, title: ModalView['title'], blocks: KnownBlock[], submit?: string): ModalView {
  return {
    type: 'modal',
    callback_id: DECISION_CALLBACK,
    private_metadata: encodeDecisionState(state),
    title,
    close: { type: 'plain_text', text: submit === undefined ? 'Close' : 'Cancel' },
    ...(submit === undefined ? {} : { submit: { type: 'plain_text' as const, text: submit } }),
    blocks: blocks.slice(0, LIMITS.blocksPerView),
  };
}

/** Pushed over the Details modal when an action is chosen: what will be decided, and the comment. Nothing is sent before its submit. */
export function decisionConfirmView(state: DecisionState, comment: CommentAsked): ModalView {
  const commentRequired = comment === 'required';
  const field: KnownBlock[] =
    comment === 'none'
      ? // A field whose text the call never sends would take the approver's words and drop them.
        [context('No comment is asked for: the decision call set up for this workspace does not send one.')]
      : [commentInput(state, commentRequired)];
  return modal(
    state,
    CONFIRM_TITLE,
    [
      richText([
        ['You are deciding this approval as ', bold(oneLine(state.action, 60)), ':'],
        ...aboutLines(state.details.approvalId, state.about),
      ]),
      ...field,
      context(
        `Nothing is sent until you press ${decisionSubmitText(state.action)}; Cancel sends nothing. The service is asked again first, so only what it offers now is sent.`,
      ),
    ],
    decisionSubmitText(state.action),
  );
}

/**
 * Pushed at the click when the approval must be asked about first (Details drawn a while ago) and
 * the service is slow to answer: Slack's trigger lasts 3 seconds, so something is shown in time and
 * then becomes the confirmation, or says why there is none.
 */
export function decisionCheckingView(state: DecisionState): ModalView {
  return modal(state, CONFIRM_TITLE, [
    richText([
      [
        emoji('hourglass_flowing_sand'),
        ' Checking with the Command Service that this approval still waits for ',
        bold(oneLine(state.action, 60)),
        '…',
      ],
      ...aboutLines(state.details.approvalId, state.about),
    ]),
  ]);
}

/** At the click: the approval is not offered for this action any more, so no comment is asked for. */
export function decisionRefusedAtClickView(
  state: DecisionState,
  refusal: DecisionRefusal,
  reader: Reader,
  approvalLinks: ApprovalLinks | undefined,
): ModalView {
  const open = openBlock(approvalLinks, state.details.approvalId);
  return modal(state, OUTCOME_TITLE, [
    richText([
      ...refusalLines(refusal, state, reader, open.length > 0),
      [italic('Nothing was sent to the Command Service. Close this to see the approval as it stands now.')],
      ...aboutLines(state.details.approvalId, state.about),
    ]),
    ...open,
  ]);
}

function commentInput(state: DecisionState, commentRequired: boolean): KnownBlock {
  return {
    type: 'input',
    block_id: COMMENT_FIELD.block,
    optional: !commentRequired,
    // Slack marks an optional field "(optional)" itself.
    label: plain(commentRequired ? `Comment (needed for ${state.action})` : 'Comment', LIMITS.inputLabel),
    element: {
      type: 'plain_text_input',
      action_id: COMMENT_FIELD.action,
      multiline: true,
      max_length: MAX_COMMENT_CHARS,
      ...(commentRequired ? { min_length: 1 } : {}),
    },
    hint: plain('Sent to the Command Service with your decision, and kept in countersign’s audit trail.', LIMITS.inputHint),
  } as KnownBlock;
}

/** Shown at once on Confirm, while the service is asked; with the comment being sent, when there is one. */
export function decisionProgressView(state: DecisionState, comment?: string): ModalView {
  return modal(state, OUTCOME_TITLE, [
    richText([
      [emoji('hourglass_flowing_sand'), ' Sending ', bold(oneLine(state.action, 60)), ' to the Command Service…'],
      ...aboutLines(state.details.approvalId, state.about),
    ]),
    ...commentBlocks(comment, 'Your comment, being sent:'),
  ]);
}

/**
 * The comment as the approver wrote it and as it was sent: its own rich text quote, line breaks
 * kept, every character shown as it is (rich text is never read as mrkdwn: no ping, link or
 * format), hidden ones as marks. Nothing for no comment. Cut, with an ellipsis, only past the
 * block's budget, which a comment (2,000 characters) does not reach.
 */
export function commentBlocks(comment: string | undefined, label: string): KnownBlock[] {
  if (comment === undefined || comment === '') return [];
  const text = truncate(revealHidden(comment), LIMITS.richTextChars);
  return [
    {
      type: 'rich_text',
      elements: [
        { type: 'rich_text_section', elements: [{ type: 'text', text: label, style: { bold: true } }] },
        { type: 'rich_text_quote', elements: [{ type: 'text', text }] },
      ],
    },
  ];
}

function openBlock(links: ApprovalLinks | undefined, approvalId: string): KnownBlock[] {
  const url = links?.(approvalId);
  return url !== undefined && url.length <= LIMITS.buttonUrl
    ? [actions('decision:open', [linkButton({ actionId: DECISION_ACTIONS.open, text: 'Open in the service', url })])]
    : [];
}

/** What the service shows of it now: "completed as Rejected, 2026-11-22 10:42:05.0, by Lovelace, Ada". */
function seenLine(d: ApprovalDetails, frame: TimeFrame): Run[] {
  if (d.completedDate === '') return ['It still shows it waiting for a decision.'];
  const by: Run[] = d.completedByName ? [', by ', oneLine(d.completedByName, 80)] : [];
  const done = readableTimestamp(d.completedDate, frame) ?? oneLine(d.completedDate, 40);
  return ['It shows it completed as ', bold(oneLine(d.state || 'completed', 60)), ', ', done, ...by, '.'];
}

function refusalLines(r: DecisionRefusal, state: DecisionState, reader: Reader, hasOpen: boolean): Paragraph[] {
  const action = state.action;
  const elsewhere = hasOpen ? 'Open in the service to decide it there.' : 'Decide it in the Command Service itself.';
  switch (r.kind) {
    case 'not-linked':
      return [
        md(
          ':link: Your Slack account is not linked to the Command Service, so countersign cannot decide for you. Type `/approvals login` first.',
        ),
      ];
    case 'not-visible':
      // Only an approval on a list of the reader's is known to have existed for them (as Details says it).
      if (state.details.origin.kind === 'page' && !shownBefore(state.details, reader.id))
        return [
          [
            emoji('mag'),
            ' The Command Service has no approval ',
            code(oneLine(state.details.approvalId, 120)),
            ' that you can see: it is not on a list of yours, and may be someone else’s.',
          ],
        ];
      return [
        [
          emoji('see_no_evil'),
          ' The Command Service no longer shows this approval to you: it may have been decided meanwhile, reassigned or withdrawn.',
        ],
      ];
    case 'not-pending':
      return [
        [
          emoji('checkered_flag'),
          ' It is decided already: the service shows it completed',
          ...(r.state ? [' as ', bold(oneLine(r.state, 60))] : []),
          ...(r.by ? [', by ', oneLine(r.by, 80)] : []),
          '.',
        ],
      ];
    case 'line-items':
      return [[emoji('ballot_box_with_check'), ' Each item of this request is decided on its own, in the service. ', elsewhere]];
    case 'action-not-listed': {
      const listed: Run[] = r.listed.slice(0, 10).flatMap((a, i) => [...(i > 0 ? [', '] : []), bold(oneLine(a, 60))]);
      return [
        [emoji('warning'), ' The service does not offer ', bold(oneLine(action, 60)), ' for this approval now.'],
        r.listed.length > 0
          ? ['It offers ', ...listed, ': close this and choose again in the details.']
          : ['It offers no action for it now.'],
      ];
    }
    case 'already-decided':
      return [[...decidedLine({ action: r.action, at: r.at, userId: r.userId }, reader), ': it is not decided twice.']];
    case 'held':
      return [heldLine(r.userId, r.action, r.state, r.until, reader)];
    case 'not-offered':
      return [
        md(
          r.command === 'getApprovalDetails'
            ? ':information_source: countersign checks an approval with the service before deciding it, and this Command Service does not offer approval details (its administrators have switched them off).'
            : ':information_source: This Command Service does not offer decisions (its administrators have switched them off), so countersign stops offering them.',
        ),
        [elsewhere],
      ];
    case 'check-failed':
      return [[emoji('warning'), ' countersign could not check the approval with the service first.']];
    case 'not-allowed':
      return [
        [
          emoji('no_entry'),
          ' The Command Service does not let you act on this approval, so countersign cannot decide it for you. ',
          elsewhere,
        ],
      ];
    case 'not-theirs':
      return [
        [
          emoji('no_entry'),
          ' This approval is not on your own list of pending approvals, so it is not yours to decide: only the approver it waits for can decide it.',
        ],
      ];
    case 'sign-in-failed':
      return [
        [emoji('warning'), ' countersign could not sign in to the Command Service to send your decision. Try again in a few minutes.'],
      ];
    case 'hold-lost':
      return [
        [
          emoji('hourglass'),
          ' Checking the approval with the Command Service took so long that countersign let go of it meanwhile, so your decision was not sent. Open the approval again to see how it stands now, and decide it again if it still waits.',
        ],
      ];
    case 'stopping':
      return [[emoji('hourglass'), ' countersign is restarting, so your decision was not sent. Try again in a minute.']];
  }
}

/** Why no answer said how the decision went, in the words of what happened. */
export function unknownReason(error: unknown): string {
  if (isServiceError(error)) {
    if (error.kind === 'unexpected-response') return 'the Command Service answered, but its answer could not be read';
    if (error.kind === 'service-unavailable')
      switch (error.reason) {
        case 'timeout':
          return error.status === 408
            ? 'the Command Service timed out the request (status 408)'
            : 'the Command Service did not answer in time';
        case 'dropped':
          return 'the connection to the Command Service closed before it answered';
        case 'server-error':
          return `the Command Service failed on its side${error.status === undefined ? '' : ` (status ${error.status})`}`;
        case 'aborted':
          return 'the call to the Command Service was cut short';
        case 'busy':
          return 'the Command Service was too busy to take the call';
        case 'network':
          return 'the connection to the Command Service failed';
      }
  }
  return 'countersign failed while it waited for the answer';
}

export interface DecisionOutcomeInput {
  state: DecisionState;
  outcome: Exclude<DecideOutcome, { kind: 'failed' } | { kind: 'bad-comment' }>;
  readerId: string;
  /** The comment as it was checked and sent (or would have been): repeated, so the approver sees what the service and the trail got. */
  comment?: string | undefined;
  /** The reader's zone and now, with the service's zone: the service's times in theirs. */
  frame: TimeFrame;
  approvalLinks?: ApprovalLinks | undefined;
}

/**
 * The service answered the call (a 2xx), and afterwards did not show the approval completed as the
 * action sent: what it shows is said, and nothing is claimed for the approver.
 */
function answeredLines(
  outcome: Extract<DecideOutcome, { kind: 'unknown'; answer: unknown }>,
  state: DecisionState,
  frame: TimeFrame,
): Paragraph[] {
  const d = outcome.details;
  const said: Run[] =
    outcome.answer.saysError === undefined
      ? [`The Command Service answered (status ${outcome.answer.status})`]
      : [`The Command Service answered (status ${outcome.answer.status}) saying “`, oneLine(outcome.answer.saysError, 200), '”'];
  const sent = bold(oneLine(state.action, 60));
  if (d === undefined)
    return [
      [
        emoji('grey_question'),
        ' ',
        ...said,
        ', but the approval could not be read afterwards, so countersign cannot tell whether your ',
        sent,
        ' took.',
      ],
      [
        'Check it in the service before deciding again. It can be decided here again after ',
        readableInstant(outcome.retryAt, frame.zone),
        '.',
      ],
    ];
  if (d.completedDate === '')
    return [
      [
        emoji('grey_question'),
        ' ',
        ...said,
        ', but still shows this approval waiting for a decision: your ',
        sent,
        ' is not recorded as made.',
      ],
      [
        'Check it in the service before deciding again. It can be decided here again after ',
        readableInstant(outcome.retryAt, frame.zone),
        '.',
      ],
    ];
  if (outcome.sameAction)
    return [
      [emoji('grey_question'), ' ', ...said, ', and shows the approval completed as ', sent, ' now.'],
      seenLine(d, frame),
      ['countersign cannot tell from here whether yours did it or another approver’s: the service’s own history says.'],
    ];
  return [
    [emoji('grey_question'), ' ', ...said, ', and shows the approval decided otherwise, not as your ', sent, '.'],
    seenLine(d, frame),
    ['Check in the service what happened.'],
  ];
}

/** What came of it, once the service answered (or did not). */
export function decisionOutcomeView(input: DecisionOutcomeInput): ModalView {
  const { state, outcome, readerId } = input;
  const reader: Reader = { id: readerId, zone: input.frame.zone };
  const id = state.details.approvalId;
  const open = openBlock(input.approvalLinks, id);
  const hasOpen = open.length > 0;
  const about = aboutLines(id, state.about);
  const nothing: Paragraph = [italic('Nothing was sent to the Command Service.')];
  let paragraphs: Paragraph[];
  switch (outcome.kind) {
    case 'done':
      paragraphs = [
        [
          emoji('white_check_mark'),
          ' Done: the Command Service took your decision, ',
          bold(oneLine(outcome.action, 60)),
          ', ',
          // Written as every other time in this window: the reader's zone, named.
          readableInstant(outcome.at, input.frame.zone),
          '.',
        ],
        seenLine(outcome.details, input.frame),
        ...(outcome.recorded
          ? []
          : [
              [
                emoji('warning'),
                ' countersign could not write this to its audit trail just now; it records what the service shows when it reads the approval again.',
              ],
            ]),
        ...about,
      ];
      break;
    case 'refused':
      paragraphs = [...refusalLines(outcome.refusal, state, reader, hasOpen), nothing, ...about];
      break;
    case 'duplicate':
      paragraphs = [
        [emoji('repeat'), ' This decision was submitted twice: it is sent once, and nothing more was sent.'],
        ...(outcome.hold.state === 'done'
          ? [
              decidedLine(
                { action: outcome.hold.action, at: outcome.hold.settledAt ?? outcome.hold.at, userId: outcome.hold.userId },
                reader,
              ),
            ]
          : []),
        ...about,
      ];
      break;
    case 'not-done': {
      const says: Run[] = outcome.error.serviceMessage ? [' It said: “', oneLine(outcome.error.serviceMessage, 300), '”'] : [];
      const first: Record<typeof outcome.why, Paragraph> = {
        'not-visible': [
          emoji('see_no_evil'),
          ' The Command Service did not take it: it could not retrieve this approval for you, so it was decided meanwhile, reassigned or withdrawn.',
        ],
        rejected: [
          emoji('no_entry'),
          ' The Command Service did not take ',
          bold(oneLine(state.action, 60)),
          ' for this approval.',
          ...says,
        ],
        'not-permitted': [
          emoji('no_entry'),
          ' The Command Service does not let your account decide through countersign: decide in the service instead, or ask your identity team for that permission.',
        ],
        'not-offered': [
          emoji('information_source'),
          ' This Command Service does not offer decisions (its administrators have switched them off), so countersign stops offering them: decide in the service instead.',
        ],
      };
      paragraphs = [first[outcome.why], [italic('Nothing was decided.')], ...about];
      break;
    }
    case 'unknown': {
      if ('answer' in outcome) {
        paragraphs = [...answeredLines(outcome, state, input.frame), ...about];
        break;
      }
      const d = outcome.details;
      const why = unknownReason(outcome.error);
      const reason = `${why.charAt(0).toUpperCase()}${why.slice(1)}`;
      if (outcome.sameAction && d !== undefined) {
        paragraphs = [
          [
            emoji('ballot_box_with_check'),
            ` ${reason}, but it shows the approval completed as `,
            bold(oneLine(state.action, 60)),
            ' now, the action you sent.',
          ],
          seenLine(d, input.frame),
          ['countersign cannot tell from here whether yours did it or another approver’s: the service’s own history says.'],
          ...about,
        ];
      } else if (d !== undefined && d.completedDate !== '') {
        paragraphs = [
          [
            emoji('grey_question'),
            ' countersign could not confirm your decision: ',
            `${why}, and it shows the approval decided otherwise now.`,
          ],
          seenLine(d, input.frame),
          ['Check in the service whether that was yours.'],
          ...about,
        ];
      } else {
        const retry: Run[] = [' It can be decided here again after ', readableInstant(outcome.retryAt, input.frame.zone), '.'];
        paragraphs = [
          [
            emoji('grey_question'),
            ' countersign could not confirm your decision: ',
            d !== undefined
              ? `${why}, and it still shows this approval waiting. Your decision may still arrive.`
              : `${why}, and it could not be asked again.`,
          ],
          ['Check again in a minute, in the service, before deciding again.', ...retry],
          ...about,
        ];
      }
      break;
    }
    case 'not-linked':
      paragraphs = [...refusalLines({ kind: 'not-linked' }, state, reader, hasOpen), nothing];
      break;
    case 'off':
      paragraphs = [[emoji('information_source'), ' Deciding from Slack is not turned on here. '], nothing];
      break;
  }
  return modal(state, OUTCOME_TITLE, [richText(paragraphs), ...commentBlocks(input.comment, commentLabel(outcome)), ...open]);
}

/** What the comment shown below an outcome was: sent with the decision, or kept back with it. */
function commentLabel(outcome: DecisionOutcomeInput['outcome']): string {
  switch (outcome.kind) {
    case 'done':
    case 'unknown':
    case 'not-done':
      return 'Your comment, as sent:';
    case 'duplicate':
      return 'Your comment:';
    default:
      // Nothing was sent: the words are kept here, to copy into the service or a new decision.
      return 'Your comment, not sent:';
  }
}

/** A failure the error translator has put into words, with "Nothing was sent" where nothing was, and the way to the service. */
export function decisionFailureView(state: DecisionState, message: Message, approvalLinks: ApprovalLinks | undefined): ModalView {
  // The translator's buttons answer through a response_url, which a modal has not.
  const words = message.blocks.filter((b) => b.type !== 'actions');
  return modal(state, OUTCOME_TITLE, [...words, ...openBlock(approvalLinks, state.details.approvalId)]);
}

/** Our own words only, in place of a view Slack refused, so the approver is not left on "Sending…": what happened is in the log. */
export function decisionUnshownView(state: DecisionState, reference: string, approvalLinks: ApprovalLinks | undefined): ModalView {
  return modal(state, OUTCOME_TITLE, [
    richText([
      [
        emoji('warning'),
        ' Slack would not show what came of your decision here. Check the approval in the service; it has been logged for your Slack admins.',
      ],
      ['Reference ', code(oneLine(reference, 40)), '.'],
    ]),
    ...openBlock(approvalLinks, state.details.approvalId),
  ]);
}
