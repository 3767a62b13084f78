/**
 * Typing a decision, end to end: `/approvals approve <id>` and its kin are understood as wanting to
 * decide, and answered with the way there (the approval's Details, by the id typed), whether or not
 * deciding from Slack is turned on; nothing reaches the service.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let deciding: Harness;
let reading: Harness;
beforeAll(async () => {
  deciding = await startHarness({ env: { DECISION_REQUEST: 'GET performWorkItem?workitem-id={id}&action={action}&comment={comment}' } });
  reading = await startHarness();
  await deciding.link('UADA', 'approver');
  await reading.link('UADA', 'approver');
});
afterAll(async () => {
  await deciding?.close();
  await reading?.close();
});

async function answer(h: Harness, text: string): Promise<string> {
  const calls = [...h.service.calls.values()].reduce((a, b) => a + b, 0);
  const sent = await h.command('UADA', '/approvals', text);
  const [body] = await h.slack.waitForResponses(sent.responseId, 1);
  expect([...h.service.calls.values()].reduce((a, b) => a + b, 0)).toBe(calls);
  return textOf(body);
}

describe('a decision typed as a command', () => {
  it('points to the approval’s Details and its buttons, with the id typed', async () => {
    const text = await answer(deciding, 'approve 10114:WPDS:2');
    expect(text).toContain(
      ':raised_hand: Approvals are not decided by typing “approve”: open one with `/approvals show 10114:WPDS:2`, and its Details have a button for each action the service allows for it (such as Accepted or Rejected); you confirm there, with a comment.',
    );
    expect(text).not.toContain('I don’t understand');
    expect(text).not.toContain("I don't understand");
  });

  it('understands its kin, in any case, and an id copied with its backticks', async () => {
    for (const verb of ['Reject', 'DECIDE', 'accept', 'denied', 'decline', 'approved'])
      expect(await answer(deciding, `${verb} \`10114:WPDS:2\` looks fine to me`)).toContain(
        `not decided by typing “${verb.toLowerCase()}”: open one with \`/approvals show 10114:WPDS:2\``,
      );
  });

  it('says how to find the id when none was typed, or what was typed is not one', async () => {
    for (const text of ['approve', 'approve Domain Admins']) {
      const said = await answer(deciding, text);
      expect(said).toContain('open one with `/approvals show <approval-id>`');
      expect(said).toContain('The id is the last line of each approval `/approvals` lists, such as `10198:WPDS:1`.');
    }
  });

  it('says where to decide when deciding from Slack is not turned on', async () => {
    expect(await answer(reading, 'reject 10114:WPDS:2')).toContain(
      'open one with `/approvals show 10114:WPDS:2`, and its Details say what it asks for and the actions the service lists; deciding from Slack is not turned on here, so decide it in the Command Service.',
    );
  });

  it('still reads “completed” as the state it is', async () => {
    expect(
      await reading
        .command('UADA', '/approvals', 'completed page-size:1')
        .then(async (s) => textOf((await reading.slack.waitForResponses(s.responseId, 1))[0])),
    ).toContain('Completed approvals');
  });
});
