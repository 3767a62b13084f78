import { describe, expect, it } from 'vitest';
import { MAX_XML_DEPTH, parseProperties, parseXml } from '../../src/service/formats.js';

describe('parseProperties', () => {
  it('reads key=value lines, skipping comments and blanks, splitting at the first =', () => {
    const props = parseProperties('# comment\n\ntype=collectEntitlements\r\nrun-id=1,2\nrun-source-1=AD=Accounts\n! other comment\n');
    expect([...props]).toEqual([
      ['type', 'collectEntitlements'],
      ['run-id', '1,2'],
      ['run-source-1', 'AD=Accounts'],
    ]);
  });
  it('throws on a line that is not key=value', () => {
    expect(() => parseProperties('type=x\nnot a pair')).toThrow(/not a key=value line/);
    expect(() => parseProperties('=value')).toThrow();
  });
});

describe('parseXml on large and hostile bodies', () => {
  // A 2xx body may be up to 8 MiB; backtracking patterns took seconds per 100 KB of these.
  const hostile: Array<[string, string]> = [
    ['unclosed tags', `<r>${'<a '.repeat(140_000)}`],
    ['unclosed comments', `<r>${'<!--'.repeat(100_000)}`],
    ['unclosed processing instructions', `<r>${'<?'.repeat(200_000)}`],
    ['unclosed DOCTYPEs', `<r>${'<!DOCTYPE'.repeat(45_000)}`],
    ['unclosed CDATA', `<r>${'<![CDATA['.repeat(45_000)}`],
  ];
  for (const [name, body] of hostile) {
    it(`refuses 400 KB of ${name} at once, naming what is unclosed`, () => {
      expect(() => parseXml(body)).toThrow(/never closed/);
    });
  }
  it('refuses nesting deeper than any answer of the service at once, however deep the body goes (nothing recurses)', () => {
    const deep = (n: number) => `${'<a>'.repeat(n)}x${'</a>'.repeat(n)}`;
    expect(() => parseXml(deep(MAX_XML_DEPTH + 1))).toThrow(/nested deeper than 32 levels/);
    expect(() => parseXml('<a>'.repeat(2_000_000))).toThrow(/nested deeper/);
    let value = parseXml(deep(MAX_XML_DEPTH)).value;
    for (let depth = 1; depth < MAX_XML_DEPTH; depth++) value = (value as { a: typeof value }).a;
    expect(value).toBe('x');
  });
  it('expands no entity a body declares: a billion laughs stays one short text', () => {
    const lol = (n: number) => (n === 1 ? '"lol"' : `"${`&lol${n - 1};`.repeat(10)}"`);
    const entities = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} ${lol(i + 1)}>`).join('');
    const body = `<?xml version="1.0"?><!DOCTYPE lolz [${entities}]><findApprovals><x>&lol9;</x></findApprovals>`;
    expect(parseXml(body)).toEqual({ name: 'findApprovals', value: { x: '&lol9;' } });
  });
  it('keeps an element named __proto__ as a child, never as the prototype', () => {
    const { value } = parseXml('<r><__proto__><polluted>1</polluted></__proto__><__proto__>2</__proto__></r>');
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
  it('reads a large well-formed body', () => {
    const body = `<findApprovals>${'<Approval><WorkItemId>1:a:1</WorkItemId></Approval>'.repeat(10_000)}<NumApprovals>10000</NumApprovals></findApprovals>`;
    expect((parseXml(body).value as { Approval: unknown[] }).Approval).toHaveLength(10_000);
  });
});

describe('parseXml', () => {
  it('turns one child into an object and repeated children into a list', () => {
    const one = parseXml(
      '<?xml version="1.0"?><findApprovals><Approval><WorkItemId>1:a:1</WorkItemId></Approval><NumApprovals>1</NumApprovals></findApprovals>',
    );
    expect(one).toEqual({ name: 'findApprovals', value: { Approval: { WorkItemId: '1:a:1' }, NumApprovals: '1' } });
    const two = parseXml('<r><A><x>1</x></A><A><x>2</x></A><A><x>3</x></A></r>');
    expect(two.value).toEqual({ A: [{ x: '1' }, { x: '2' }, { x: '3' }] });
  });
  it('decodes entities and CDATA, ignores attributes and comments', () => {
    expect(parseXml('<r a="1"><!-- c --><n>R&amp;D &lt;x&gt;</n><m><![CDATA[<raw> & ]]></m><e/></r>').value).toEqual({
      n: 'R&D <x>',
      m: '<raw> &',
      e: '',
    });
  });
  it('refuses truncated and mismatched documents', () => {
    expect(() => parseXml('<findApprovals><NumApprovals>0</NumApprovals>')).toThrow(/never closed/);
    expect(() => parseXml('<a><b></a></b>')).toThrow(/closes/);
    expect(() => parseXml('<a></a><b></b>')).toThrow(/one root/);
    expect(() => parseXml('<a></a> trailing')).toThrow(/after the last element/);
    expect(() => parseXml('')).toThrow(/one root/);
  });
});
