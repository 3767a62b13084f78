/**
 * `npm run bench -- parsers`: how long the client's readers take on what an untrusted service may
 * send, within the limits the client reads to: XML bodies of 8 MiB (findApprovals' limit), HTML
 * error pages of 400 KB (read to their first 64 KiB), JSON nested past the details' depth, and a
 * Details view rendered from megabytes of text in every field. The tests check what comes back;
 * these are the times, which tests do not assert.
 */

import { renderDetailsView } from '../src/render/details.js';
import { Secret } from '../src/runtime/secret.js';
import { MAX_XML_DEPTH, parseXml } from '../src/service/formats.js';
import { parseErrorPage } from '../src/service/html.js';
import { createServiceClient, type RequestItem } from '../src/service/index.js';
import { timeFrame } from '../src/time/frame.js';
import { fakeDetails } from '../test/helpers/fakes.js';
import { sendBody, startStubServer } from '../test/helpers/stub-server.js';
import { fmt, median } from './lib.js';

const MiB = 1024 * 1024;

/** Median of five runs after one to warm up, and how the last one ended. */
async function time(work: () => unknown): Promise<{ ms: number; outcome: string }> {
  const times: number[] = [];
  let outcome = '';
  for (let i = 0; i < 6; i++) {
    const started = performance.now();
    try {
      await work();
      outcome = 'read';
    } catch (error) {
      // An UnexpectedResponseError's detail says why; a parser's message does.
      const why = (error as { detail?: string }).detail ?? (error as Error).message;
      outcome = `refused (${why.slice(0, 50)})`;
    }
    if (i > 0) times.push(performance.now() - started);
  }
  return { ms: median(times), outcome };
}

function xmlBodies(): Array<[string, string]> {
  const approval =
    '<Approval><WorkItemName>Manager Approval</WorkItemName><WorkItemId>1:WPDS:1</WorkItemId><RequestName>Add access for Wayne, Bruce &amp; co</RequestName><WorkItemDueDate>2026-12-01 10:00:00.0</WorkItemDueDate></Approval>';
  const n = Math.floor((8 * MiB) / approval.length);
  const lol = (k: number) => (k === 1 ? '"lol"' : `"${`&lol${k - 1};`.repeat(10)}"`);
  const entities = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} ${lol(i + 1)}>`).join('');
  return [
    [
      `8 MiB findApprovals, ${fmt(n, 0)} approvals`,
      `<findApprovals>${approval.repeat(n)}<NumApprovals>${n}</NumApprovals></findApprovals>`,
    ],
    ['8 MiB, 1M sibling elements', `<r>${'<a>1</a>'.repeat(MiB)}</r>`],
    ['8 MiB of &amp; in one text', `<r><x>${'&amp;'.repeat((8 * MiB) / 5)}</x></r>`],
    ['8 MiB of unclosed tags', `<r>${'<a '.repeat((8 * MiB) / 3)}`],
    ['8 MiB of unclosed comments', `<r>${'<!--'.repeat(2 * MiB)}`],
    ['8 MiB of unclosed CDATA', `<r>${'<![CDATA['.repeat((8 * MiB) / 9)}`],
    ['8 MiB of open tags, 2.8M deep', '<a>'.repeat((8 * MiB) / 3)],
    [`nested ${MAX_XML_DEPTH} deep (the limit)`, `${'<a>'.repeat(MAX_XML_DEPTH)}x${'</a>'.repeat(MAX_XML_DEPTH)}`],
    ['a billion laughs (not expanded)', `<!DOCTYPE lolz [${entities}]><findApprovals><x>&lol9;</x></findApprovals>`],
  ];
}

function errorPages(): Array<[string, string]> {
  const head = '<html><head><title>Error</title></head><body><h1>Error</h1><p>The parameter sort is invalid.</p><p>';
  const pads: Array<[string, string]> = [
    ['unclosed tags', '<a '.repeat(140_000)],
    ['unclosed titles', '<title'.repeat(70_000)],
    ['unclosed comments', '<!--'.repeat(100_000)],
    ['unclosed scripts', '<script>'.repeat(50_000)],
    ['stray angle brackets', '< b'.repeat(140_000)],
    ['unfinished entities', `&${'a'.repeat(400_000)}`],
    ['nested divs', '<div>'.repeat(80_000)],
    ['one tag of 60,000 attributes', `<p ${'a="b" '.repeat(60_000)}>`],
    ['entities', '&eacute;&amp;&#x1F600;'.repeat(20_000)],
  ];
  return pads.map(([name, pad]) => [name, `${head}${pad}</p></body></html>`]);
}

/** A Details view whose every field holds a megabyte: what is shown is cut to Slack's limits. */
function hugeDetailsView(): () => unknown {
  const huge = (c: string) => c.repeat(MiB);
  const item = (i: number): RequestItem => ({
    itemId: String(i),
    typeDescription: 'Add user to group',
    operation: 'Add',
    entitlementType: 'group',
    entitlementName: huge('e'),
    businessSource: 'Active Directory',
    state: 'Pending Approval',
    description: huge('\t'),
    derivedType: 'Direct',
    isChangeToApprove: true,
    userName: huge('u'),
    userId: 'bruce.wayne',
    accountName: 'bwayne',
    fields: {},
  });
  const details = fakeDetails({
    requestName: huge('n'),
    workItemName: huge('w'),
    requestedByName: huge('r'),
    description: huge('d\n'),
    notes: `${huge('o')}\n${huge('😀')}`,
    actions: [huge('a'), huge('b')],
  });
  const items = Array.from({ length: 10 }, (_, i) => item(i));
  const page = { items, received: 10, count: 10, total: undefined, workItemId: details.workItemId, requestId: '1', requestStatus: '' };
  const state = { approvalId: details.workItemId, origin: { kind: 'home' as const }, page: 1, responseUrl: undefined };
  const frame = timeFrame(new Date('2026-11-22T12:00:00Z'), 'UTC', undefined);
  return () =>
    renderDetailsView({
      outcome: { kind: 'details', details, items: { kind: 'page', page: 1, pageSize: 10, items: page } },
      state,
      userId: 'UADA',
      frame,
    });
}

export async function parsersSuite(): Promise<void> {
  console.log(
    "\n## Untrusted input: the client's readers at their limits (median of 5 runs; read = parsed, refused = an error that says why)",
  );
  for (const [name, body] of xmlBodies()) {
    const { ms, outcome } = await time(() => parseXml(body));
    console.log(`XML   ${name.padEnd(40)} ${fmt(ms).padStart(9)} ms  ${outcome}`);
  }
  for (const [name, page] of errorPages()) {
    const { ms } = await time(() => parseErrorPage(page));
    console.log(`HTML  ${`${Math.round(page.length / 1024)} KB page: ${name}`.padEnd(40)} ${fmt(ms, 2).padStart(9)} ms`);
  }
  const depth = 100_000;
  const deep = `{"getApprovalDetails":{"Approval":{"WorkItemId":"1:W:1","Actions":${'['.repeat(depth)}${']'.repeat(depth)}}}}`;
  const stub = await startStubServer((_req, res) => sendBody(res, 200, deep));
  const client = createServiceClient({ baseUrl: stub.url });
  try {
    const { ms, outcome } = await time(() => client.getApprovalDetails('1:W:1', new Secret('bench-parsers-token')));
    console.log(
      `JSON  ${`getApprovalDetails nested ${fmt(depth, 0)} deep`.padEnd(40)} ${fmt(ms).padStart(9)} ms  ${outcome} (HTTP included)`,
    );
  } finally {
    await client.close();
    await stub.close();
  }
  const { ms } = await time(hugeDetailsView());
  console.log(`View  ${'Details, a megabyte in every field'.padEnd(40)} ${fmt(ms).padStart(9)} ms`);
}
