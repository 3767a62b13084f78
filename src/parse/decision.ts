/**
 * What a decision's confirmation carries, read defensively: the action button of the Details modal
 * (the action chosen, and the words that name the approval in the confirmation), the confirmation
 * modal's private_metadata, and the comment typed into it. None of it is trusted for more than
 * finding its way: the action is checked against what the service lists when it is submitted.
 */

import { commentSchema, hasVisibleText, invisibleCharacter, MAX_COMMENT_CHARS, unsafeCharacter } from '../service/query.js';
import { type DetailsState, type DetailsWire, decodeDetailsWire, parseApprovalId } from './details.js';

/** What the confirmation and the outcome say of the approval: words only, never what is sent. */
export interface DecisionAbout {
  requestName: string;
  requestedBy: string;
  step: string;
}

/** A Details modal's action button: the action, the approval in words, and when the Details were drawn. */
export interface DecisionChoice extends DecisionAbout {
  action: string;
  /** When the Details it was on were drawn (to the second); undefined for a button that does not say. */
  shownAt: Date | undefined;
  /** The approval, carried by a button in a message (an arrival's): one in the Details modal has it in the modal's metadata. */
  approvalId?: string | undefined;
}

/** Short keys: a button value holds 2,000 characters. */
export interface DecisionChoiceWire {
  /** The approval's id: only on a button in a message. */
  a?: string;
  x: string;
  r?: string;
  b?: string;
  n?: string;
  /** Seconds since the epoch. */
  t?: number;
}

const text = (v: unknown, max: number) => (typeof v === 'string' && v.length <= max ? v : '');

function json(value: string | undefined, max: number): unknown {
  if (value === undefined || value.length > max) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

/** An action as the service names it: some text, on one line, with nothing that hides or reorders. */
export function isActionName(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '' && value.length <= 256 && unsafeCharacter(value) === undefined;
}

export function decodeDecisionChoice(value: string | undefined): DecisionChoice | undefined {
  const wire = json(value, 2000) as Partial<Record<keyof DecisionChoiceWire, unknown>> | undefined;
  if (typeof wire !== 'object' || wire === null || !isActionName(wire.x)) return undefined;
  // Only ever used to skip a call to the service at the click; the check at Confirm is made whatever it says.
  const shownAt = Number.isSafeInteger(wire.t) && (wire.t as number) > 0 ? new Date((wire.t as number) * 1000) : undefined;
  const approvalId = typeof wire.a === 'string' ? parseApprovalId(wire.a) : undefined;
  return {
    action: wire.x,
    requestName: text(wire.r, 300),
    requestedBy: text(wire.b, 200),
    step: text(wire.n, 200),
    shownAt,
    ...(approvalId === undefined ? {} : { approvalId }),
  };
}

/** The confirmation modal's state: which decision, of which action, over which Details modal. */
export interface DecisionState {
  /** The decision's id in the audit trail, from the click that asked. */
  decisionId: string;
  action: string;
  /** The Details modal underneath, updated with the outcome. */
  parentViewId: string | undefined;
  /** The Details modal's own state: the approval, and where Details was clicked (what to update in place). */
  details: DetailsState;
  about: DecisionAbout;
}

export interface DecisionStateWire extends Omit<DecisionChoiceWire, 'x'> {
  d: string;
  x: string;
  v?: string;
  s: DetailsWire;
}

export function decodeDecisionState(metadata: string | undefined): DecisionState | undefined {
  const wire = json(metadata, 3000) as Partial<Record<keyof DecisionStateWire, unknown>> | undefined;
  if (typeof wire !== 'object' || wire === null) return undefined;
  const details = decodeDetailsWire(wire.s);
  if (details === undefined || !isActionName(wire.x) || typeof wire.d !== 'string' || !/^[\w-]{8,64}$/.test(wire.d)) return undefined;
  const parent = typeof wire.v === 'string' && /^V[A-Za-z0-9]{1,40}$/.test(wire.v) ? wire.v : undefined;
  const about = { requestName: text(wire.r, 300), requestedBy: text(wire.b, 200), step: text(wire.n, 200) };
  return { decisionId: wire.d, action: wire.x, parentViewId: parent, details, about };
}

export type CommentCheck = { ok: true; comment: string } | { ok: false; problem: string };

/**
 * The comment as it will be sent: line endings made \n, spaces at its ends trimmed. Refused, with
 * the words the modal shows under the field: empty, or with nothing that shows, for an action that
 * needs one; too long; or holding characters that hide or reorder text (controls, bidirectional
 * marks, invisible characters out of their place: U+200B, tag characters, a run of variation
 * selectors…). An invisible character cannot make a required comment: the requester and the audit
 * trail would read nothing.
 */
export function checkComment(raw: string, action: string, commentRequired: readonly string[]): CommentCheck {
  const comment = raw.replace(/\r\n?/g, '\n').trim();
  const required = commentRequired.includes(action.toLowerCase());
  if (comment === '' && required)
    return { ok: false, problem: `${action} needs a comment: say why, for the requester and the audit trail.` };
  if (comment.length > MAX_COMMENT_CHARS)
    return { ok: false, problem: `A comment holds up to ${MAX_COMMENT_CHARS} characters; this one has ${comment.length}.` };
  if (required && !hasVisibleText(comment))
    return {
      ok: false,
      problem: `${action} needs a comment in words: this one has nothing that shows (it starts with ${codePoint(comment)}). Say why, for the requester and the audit trail.`,
    };
  if (!commentSchema.safeParse(comment).success) {
    const what = unsafeCharacter(comment.replace(/[\n\t]/g, ' ')) ?? invisibleCharacter(comment) ?? 'a character that cannot be sent';
    return { ok: false, problem: `The comment holds ${what}; take it out and submit again.` };
  }
  return { ok: true, comment };
}

/** The first character of the text as U+XXXX. */
function codePoint(text: string): string {
  return `U+${(text.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;
}
