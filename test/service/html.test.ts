import { describe, expect, it } from 'vitest';
import { decodeEntities, htmlToText, looksLikeHtml, MAX_ERROR_PAGE_CHARS, parseErrorPage } from '../../src/service/html.js';

describe('decodeEntities', () => {
  it('decodes named, decimal and hex entities, every named one HTML has', () => {
    expect(decodeEntities('a &amp; b &lt;c&gt; &quot;d&quot; &#39;e&#39; &#x27;f&#x27; &nbsp;')).toBe(`a & b <c> "d" 'e' 'f' \u00a0`);
    expect(decodeEntities('Andr&eacute; &hellip; R&amp;D &mdash; &#x1F600;')).toBe('André … R&D — 😀');
  });
  // As a browser shows them (the entities package's strict decoding; the hand-written decoder this
  // replaced left a NUL or out-of-range reference as its text: a browser shows U+FFFD).
  it('leaves unknown entities and bare ampersands as they are, and shows a reference to no character as U+FFFD', () => {
    expect(decodeEntities('&bogus; &#0; &#x110000; & alone')).toBe('&bogus; \ufffd \ufffd & alone');
  });
  it('decodes only what ends in ";": a query string quoted raw keeps its parameters', () => {
    expect(decodeEntities('cmd=x&not=1&copy=2&amp;lt=3')).toBe('cmd=x&not=1&copy=2&lt=3');
  });
  it('decodes once, not twice', () => {
    expect(decodeEntities('&amp;lt;')).toBe('&lt;');
  });
});

describe('htmlToText', () => {
  it('drops tags, scripts, styles and comments, and keeps block structure as lines', () => {
    const html =
      '<html><head><style>p{}</style><script>alert(1)</script></head><body><!-- x --><h1>Error</h1><p>One <b>two</b></p><br>three</body></html>';
    expect(htmlToText(html)).toBe('Error\nOne two\nthree');
  });
});

describe('parseErrorPage', () => {
  it('reads the message and the Query String line of a 412 page', () => {
    const page = parseErrorPage(
      '<html><head><title>Error</title></head><body><h1>Error</h1><p>The parameter auth-user-id is required.</p><p>Query String=cmd=findApprovals&amp;format=json</p></body></html>',
    );
    expect(page).toEqual({
      title: 'Error',
      message: 'The parameter auth-user-id is required.',
      queryString: 'cmd=findApprovals&format=json',
    });
  });

  it('finds a Query String that follows the message on the same line, as the real service prints it', () => {
    const page = parseErrorPage(
      '<HTML><HEAD><TITLE>Error</TITLE></HEAD><BODY>User could not be validated. The username or password may be incorrect. Query String=cmd=loginUser</BODY></HTML>',
    );
    expect(page.message).toBe('User could not be validated. The username or password may be incorrect.');
    expect(page.queryString).toBe('cmd=loginUser');
  });

  it('has no query string on a 401 page', () => {
    const page = parseErrorPage(
      "<html><head><title>Error</title></head><body><p>The token is not valid for the command 'findApprovals'. Token is invalid or expired</p></body></html>",
    );
    expect(page.message).toBe("The token is not valid for the command 'findApprovals'. Token is invalid or expired");
    expect(page.queryString).toBeUndefined();
  });

  it('decodes entities in the message', () => {
    expect(parseErrorPage('<title>Error</title><p>No eligible collectors found for the application R&amp;D &lt;EU&gt;</p>').message).toBe(
      'No eligible collectors found for the application R&D <EU>',
    );
  });

  it('reads plain text too', () => {
    expect(parseErrorPage('Something broke\nQuery String=a=b')).toEqual({
      title: undefined,
      message: 'Something broke',
      queryString: 'a=b',
    });
  });
});

describe('parseErrorPage on large and hostile pages', () => {
  const head = '<html><head><title>Error</title></head><body><h1>Error</h1><p>The parameter sort is invalid.</p><p>';
  // Each of these took seconds per 100 KB with backtracking patterns (a minute for 400 KB); a
  // linear reader takes milliseconds, well within the test's own time limit.
  const hostile: Array<[string, string]> = [
    ['unclosed tags', '<a '.repeat(140_000)],
    ['unclosed titles', '<title'.repeat(70_000)],
    ['unclosed comments', '<!--'.repeat(100_000)],
    ['unclosed heads', '<head '.repeat(70_000)],
    ['unclosed scripts', '<script>'.repeat(50_000)],
    ['stray angle brackets', '< b'.repeat(140_000)],
    ['unfinished entities', `&${'a'.repeat(400_000)}`],
  ];
  for (const [name, padding] of hostile) {
    it(`reads a 400 KB page of ${name} and still finds the message`, () => {
      const page = parseErrorPage(`${head}${padding}</p></body></html>`);
      expect(page.title).toBe('Error');
      expect(page.message.startsWith('The parameter sort is invalid.')).toBe(true);
      expect(page.message.length).toBeLessThanOrEqual(MAX_ERROR_PAGE_CHARS);
      expect(page.message).not.toMatch(/<(a|title|head|script|!--)/);
    });
  }

  it('reads only the first 64 KiB: what comes after is not part of the message', () => {
    const page = parseErrorPage(`${head}${'x '.repeat(40_000)}</p><p>Query String=cmd=findApprovals</p></body></html>`);
    expect(page.message.startsWith('The parameter sort is invalid.')).toBe(true);
    expect(page.queryString).toBeUndefined();
    expect(page.message).not.toContain('Query String');
  });

  it('keeps the page structure it always read: head skipped, scripts dropped, a < that opens nothing kept', () => {
    expect(
      parseErrorPage('<html><head><title>Oops</title><script>x<y</script></head><body><p>1 < 2 & a<b>c</b></p></body></html>'),
    ).toEqual({
      title: 'Oops',
      message: '1 < 2 & ac',
      queryString: undefined,
    });
    expect(parseErrorPage('<html><head><title>Error</title><body><p>No closing head</p>').message).toBe('No closing head');
  });
});

describe('looksLikeHtml', () => {
  it('tells an HTML page from XML and JSON', () => {
    expect(looksLikeHtml('<!DOCTYPE html><html>')).toBe(true);
    expect(looksLikeHtml('  <html><body>')).toBe(true);
    expect(looksLikeHtml('<?xml version="1.0"?><findApprovals/>')).toBe(false);
    expect(looksLikeHtml('{"a":1}')).toBe(false);
  });
});
