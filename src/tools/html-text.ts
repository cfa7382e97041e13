/**
 * Snippet HTML → plain text, for search results headed to the model: tags go, entities are decoded,
 * whitespace runs become one space. Not a sanitizer (the output is text for the model, never markup).
 *
 * Invariant: tags are removed before entities are decoded, so `&lt;b&gt;` survives as the text `<b>`.
 */

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  middot: '·',
  bull: '•',
  copy: '©',
  reg: '®',
  trade: '™',
  deg: '°',
  times: '×',
  euro: '€',
  pound: '£',
};

/** Block-ish tags that separate words; the rest (b, strong, em, span...) join their neighbours. */
const BREAKING_TAG = /^<\/?(br|p|div|li|ul|ol|tr|td|th|h[1-6])\b/i;

export function stripHtml(html: string): string {
  const noTags = html.replace(/<!--[\s\S]*?-->|<\/?[A-Za-z][^<>]*>/g, (tag) => (BREAKING_TAG.test(tag) ? ' ' : ''));
  return decodeEntities(noTags).replace(/\s+/g, ' ').trim();
}

export function decodeEntities(text: string): string {
  return text.replace(/&(#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z]{2,8});/g, (whole, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED[body] ?? NAMED[body.toLowerCase()] ?? whole;
  });
}
