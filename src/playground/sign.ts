import { createHmac } from 'node:crypto';

/** Slack's v0 request signature headers for a body, as Slack computes them. */
export function signSlackRequest(body: string, signingSecret: string, timestampSeconds: number): Record<string, string> {
  const signature = `v0=${createHmac('sha256', signingSecret).update(`v0:${timestampSeconds}:${body}`).digest('hex')}`;
  return { 'x-slack-signature': signature, 'x-slack-request-timestamp': String(timestampSeconds) };
}
