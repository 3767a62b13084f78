/**
 * Arrivals, in words and Block Kit: the direct message that says approvals have newly come to an
 * approver (each with what it asks for, who asked, when it is due in the reader's zone, Details and
 * the decision buttons), drawn again in place once one is decided from Slack or has left their list;
 * the one line of the first check; and the answers to `/approvals notify …`. The service's words are
 * rich text runs, shown exactly (never a ping, a link or formatting); the fallback text is made from
 * the same runs. Pure.
 */

import type { Button, KnownBlock } from '@slack/types';
import { ARRIVALS_LISTED, type ArrivalEntry, type ArrivalMessage, type NotifySettings, type QuietHours } from '../arrivals/ports.js';
import { isCarriableApprovalId } from '../parse/details.js';
import type { Approval } from '../service/schemas.js';
import type { TimeFrame } from '../time/frame.js';
import { formatMinuteOfDay, readableInstant } from '../time/write.js';
import { zoneLabel, zoneOrUtc } from '../time/zones.js';
import { approvalParagraphs, OPEN_ACTION } from './approvals.js';
import { type ApprovalLinks, actions, button, context, header, LIMITS, linkButton, type Message } from './blocks.js';
import { DECISION_ACTIONS, decidedLine, decisionButtonText, decisionChoiceValue } from './decision.js';
import { detailsButton } from './details-controls.js';
import { code, emoji, md, type Paragraph, plainOf, richText } from './rich.js';

/** Decision buttons one approval offers in the message, beside Details and Open: an actions block holds 25 elements. */
const MAX_DECISION_BUTTONS = 10;

export interface ArrivalRenderOptions {
  /** The reader's zone and now, with the service's zone: due dates written as everywhere else. */
  frame: TimeFrame;
  /** Whether Details are offered (while the service offers getApprovalDetails). */
  details: boolean;
  /** Whether decision buttons may be drawn (DECISION_REQUEST set and the service not found refusing it). */
  decisions: boolean;
  approvalLinks?: ApprovalLinks | undefined;
}

const STOP_NOTE = '`/approvals notify off` stops these messages; `/approvals notify quiet 19:00-08:00` holds them during the night.';

/** The approval as the lists draw one: the DM writes its request, step, requester and due date as every list does. */
function asApproval(entry: ArrivalEntry): Approval {
  const a = entry.approval;
  return {
    workItemId: a.approvalId,
    workItemName: a.workItemName,
    requestName: a.requestName,
    dueDate: a.dueDate,
    completedDate: '',
    fields: a.requestedBy === '' ? {} : { RequestedByName: a.requestedBy },
  };
}

/**
 * What has become of it, when it no longer waits: decided from Slack (by whom, what, when), or gone
 * from their list. Times in the reader's zone, named, as every time of the product is written: a
 * Slack date token would read as UTC in the notification.
 */
function stateParagraph(entry: ArrivalEntry, readerId: string, frame: TimeFrame): Paragraph | undefined {
  const state = entry.state;
  switch (state.kind) {
    case 'waiting':
      return undefined;
    case 'decided':
      return decidedLine({ action: state.action, at: state.at, userId: state.by }, { id: readerId, zone: frame.zone });
    case 'gone':
      return [
        emoji('see_no_evil'),
        ` No longer waiting for you (seen ${readableInstant(state.at, frame.zone)}): decided in the service, reassigned or withdrawn. Nothing here acts on it any more.`,
      ];
  }
}

function entryParagraphs(entry: ArrivalEntry, frame: TimeFrame, readerId: string): Paragraph[] {
  const paragraphs = approvalParagraphs(asApproval(entry), frame);
  // A decided or gone approval is no longer due: its due line would read as a call to act.
  const lines = entry.state.kind === 'waiting' ? paragraphs : paragraphs.filter((_, i) => i !== 2);
  const state = stateParagraph(entry, readerId, frame);
  return state === undefined ? lines : [...lines, state];
}

/** Details, the decision buttons and Open, for an approval still waiting; none once it is not. */
function entryButtons(entry: ArrivalEntry, options: ArrivalRenderOptions): Button[] {
  if (entry.state.kind !== 'waiting') return [];
  const approval = asApproval(entry);
  const buttons: Button[] = [];
  // An id the click could not carry back exactly would only ever answer that the button no longer works.
  if (options.decisions && isCarriableApprovalId(approval.workItemId)) {
    for (const action of entry.state.actions.slice(0, MAX_DECISION_BUTTONS)) {
      // The same value as the Details modal's, with the approval's id and no time of drawing.
      const value = decisionChoiceValue(action, entry.approval, { approvalId: approval.workItemId });
      const actionId = DECISION_ACTIONS.choose[buttons.length] as string;
      if (value !== undefined) buttons.push(button({ actionId, text: decisionButtonText(action), value }));
    }
  }
  const details = options.details ? detailsButton(approval, { kind: 'digest' }) : undefined;
  if (details !== undefined) buttons.push(details);
  const url = approval.workItemId === '' ? undefined : options.approvalLinks?.(approval.workItemId);
  if (url !== undefined && url.length <= LIMITS.buttonUrl) buttons.push(linkButton({ actionId: OPEN_ACTION, text: 'Open', url }));
  return buttons;
}

function headline(message: ArrivalMessage): string {
  const total = message.entries.length + message.more;
  return total === 1 ? 'A new approval for you' : `${total} new approvals for you`;
}

/** The arrival message: its approvals, each as it stands now; how many more came with them; when they were held. */
export function renderArrivals(message: ArrivalMessage, options: ArrivalRenderOptions): Message {
  const title = headline(message);
  const said: Paragraph[] = [[title]];
  const blocks: KnownBlock[] = [header(title)];
  if (message.afterQuiet) {
    const quiet = md(':crescent_moon: These arrived during your quiet hours.');
    said.push(quiet);
    blocks.push(richText([quiet]));
  }
  message.entries.slice(0, ARRIVALS_LISTED).forEach((entry, index) => {
    const paragraphs = entryParagraphs(entry, options.frame, message.userId);
    said.push(...paragraphs);
    blocks.push(richText(paragraphs));
    const buttons = entryButtons(entry, options);
    if (buttons.length > 0) blocks.push(actions(`arrival:${index}`, buttons));
  });
  const hidden = message.more + Math.max(0, message.entries.length - ARRIVALS_LISTED);
  if (hidden > 0) {
    const more: Paragraph = [`…and ${hidden} more: `, code('/approvals'), ' lists them.'];
    said.push(more);
    blocks.push(richText([more]));
  }
  blocks.push(context(STOP_NOTE));
  return { text: plainOf(said), blocks };
}

/** The first check's one line: what already waited is not announced, only counted. */
export function renderAlreadyWaiting(count: number): Message {
  const paragraph: Paragraph = [
    emoji('inbox_tray'),
    count === 1 ? ' 1 approval already waits for you: ' : ` ${count} approvals already wait for you: `,
    code('/approvals'),
    ' lists them. From now on I send you a message when a new one arrives.',
  ];
  return { text: plainOf([paragraph]), blocks: [richText([paragraph]), context(STOP_NOTE)] };
}

/** "19:00–08:00 London time": the approver's own zone, named as every time of the product is. */
export function describeQuietHours(quiet: QuietHours, zone: string | undefined): string {
  return `${formatMinuteOfDay(quiet.startMinute)}–${formatMinuteOfDay(quiet.endMinute)} ${zoneLabel(zoneOrUtc(zone))}`;
}

/** What `/approvals notify …` answers. */
export type NotifyAnswer =
  /** The setting as it is (`notify`), or as it now is after a change. */
  | { kind: 'shown' | 'changed'; settings: NotifySettings; zone: string | undefined; notLinked?: boolean }
  /** NOTIFY_INTERVAL is off: nobody here gets arrival messages, whatever they set. */
  | { kind: 'off-here' };

export function renderNotify(answer: NotifyAnswer): Message {
  if (answer.kind === 'off-here') {
    const text =
      ':no_bell: Messages when approvals arrive are turned off for everyone in this workspace by whoever runs countersign, so there is nothing to set. `/approvals` lists what waits for you, and `/approvals remind daily 09:00` sends you a digest.';
    return { text: plainOf([md(text)]), blocks: [richText([md(text)])] };
  }
  const { settings, zone } = answer;
  const lead = answer.kind === 'changed' ? 'Done. ' : '';
  const lines: string[] = [];
  if (settings.enabled) {
    lines.push(`:bell: ${lead}Arrival messages are on: I send you a direct message when an approval arrives for you, with its buttons.`);
    lines.push(
      settings.quiet === undefined
        ? 'No quiet hours: they come as soon as I see them. `/approvals notify quiet 19:00-08:00` holds them overnight.'
        : `Quiet hours *${describeQuietHours(settings.quiet, zone)}*: what arrives then comes in one message when they end. \`/approvals notify quiet off\` ends them.`,
    );
    if (answer.notLinked === true)
      lines.push(
        ':link: Your account is not linked yet, so I cannot see what arrives for you: `/approvals login`, and messages start then.',
      );
    lines.push('`/approvals notify off` stops these messages.');
  } else {
    lines.push(
      `:no_bell: ${lead}Arrival messages are off: nothing comes when an approval arrives for you. \`/approvals notify on\` starts them (only for what arrives after that).`,
    );
    if (settings.quiet !== undefined) lines.push(`Quiet hours kept for when they are on: ${describeQuietHours(settings.quiet, zone)}.`);
  }
  const paragraphs = lines.map((l) => md(l));
  return { text: plainOf(paragraphs), blocks: [richText(paragraphs)] };
}
