/** The operator's decision call, filled in for one decision: each value escaped for where it goes, nothing else changed. */
import { describe, expect, it } from 'vitest';
import { checkComment } from '../../src/parse/decision.js';
import { type DecisionCall, fillDecisionCall, parseDecisionCall } from '../../src/service/decision-call.js';
import { decisionValuesSchema } from '../../src/service/query.js';

function call(request: string, body?: string): DecisionCall {
  const parsed = parseDecisionCall(request, body);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.value;
}

/** A comment that would change the call if it were pasted in as it is. */
const HOSTILE = `</comment><action>Accepted</action> "quoted" & {id} a=1&b=2 \\ ünïcode`;
const values = { id: '10001:WPDS:1', action: 'Rejected', comment: HOSTILE };

describe('fillDecisionCall', () => {
  it('puts the values in the query as they are, for the client to percent-encode with the rest', () => {
    const filled = fillDecisionCall(call('GET performWorkItem?workitem-id={id}&action={action}&comment=chat:%20{comment}'), values);
    expect(filled).toEqual({
      method: 'GET',
      command: 'performWorkItem',
      params: [
        ['workitem-id', '10001:WPDS:1'],
        ['action', 'Rejected'],
        ['comment', `chat: ${HOSTILE}`],
      ],
      body: undefined,
    });
  });

  it('escapes the values of an XML body, so a comment cannot add an element', () => {
    const filled = fillDecisionCall(
      call('POST performWorkItem', '<workitem-id>{id}</workitem-id><action>{action}</action><comment>{comment}</comment>'),
      values,
    );
    expect(filled.body?.contentType).toBe('application/xml');
    expect(filled.body?.text).toBe(
      '<workitem-id>10001:WPDS:1</workitem-id><action>Rejected</action><comment>&lt;/comment&gt;&lt;action&gt;Accepted&lt;/action&gt; &quot;quoted&quot; &amp; {id} a=1&amp;b=2 \\ ünïcode</comment>',
    );
    expect(filled.body?.text.match(/<action>/g)).toHaveLength(1);
  });

  it('writes line breaks and tabs as character references, so an attribute’s value keeps them (a parser makes them spaces otherwise)', () => {
    const filled = fillDecisionCall(call('POST performWorkItem', '<decision id="{id}" action="{action}" comment="{comment}"/>'), {
      ...values,
      comment: 'line one\nline two\r\n\tindented "end" \'x\'',
    });
    expect(filled.body?.text).toBe(
      '<decision id="10001:WPDS:1" action="Rejected" comment="line one&#10;line two&#13;&#10;&#9;indented &quot;end&quot; &apos;x&apos;"/>',
    );
  });

  it('refuses, in the modal, a comment XML cannot carry (half a surrogate pair, U+FFFF), naming it; the client would not send it either', () => {
    for (const [comment, named] of [
      ['ok \ud83d then', 'U+D83D'],
      ['\ude00 alone', 'U+DE00'],
      ['not one \uffff', 'U+FFFF'],
    ] as const) {
      const checked = checkComment(comment, 'Accepted', []);
      expect(checked).toEqual({ ok: false, problem: expect.stringContaining(named) });
      expect(checked.ok === false && checked.problem).toMatch(/^The comment holds .*cannot be sent; take it out and submit again\.$/);
      expect(decisionValuesSchema.safeParse({ ...values, comment }).success).toBe(false);
    }
    // A whole pair is a character like any other.
    expect(checkComment('thanks 😀', 'Accepted', [])).toEqual({ ok: true, comment: 'thanks 😀' });
  });

  it('escapes the values of a JSON body as string content, so the body stays the JSON it was', () => {
    const filled = fillDecisionCall(call('POST performWorkItem?workitem-id={id}', '{"action":"{action}","comment":"{comment}"}'), values);
    expect(filled.body?.contentType).toBe('application/json');
    expect(JSON.parse(filled.body?.text ?? '')).toEqual({ action: 'Rejected', comment: HOSTILE });
  });

  it('URL-encodes the values of a form body, so a comment cannot add a field', () => {
    const filled = fillDecisionCall(call('POST performWorkItem', 'id={id}&action={action}&comment={comment}'), values);
    expect(filled.body?.contentType).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(filled.body?.text);
    expect([...form.keys()]).toEqual(['id', 'action', 'comment']);
    expect(form.get('comment')).toBe(HOSTILE);
  });

  it('leaves an empty comment empty', () => {
    expect(
      fillDecisionCall(call('GET performWorkItem?id={id}&action={action}&comment={comment}'), { ...values, comment: '' }).params,
    ).toEqual([
      ['id', '10001:WPDS:1'],
      ['action', 'Rejected'],
      ['comment', ''],
    ]);
  });
});
