import { describe, expect, it } from 'vitest';
import { decodeEntities, stripHtml } from './html-text';

describe('stripHtml', () => {
  const cases: Record<string, { input: string; expected: string }> = {
    'inline tags join their neighbours': { input: '<strong>Reyk</strong>javík is', expected: 'Reykjavík is' },
    'line breaks and blocks separate words': { input: 'one<br/>two<p>three</p>four', expected: 'one two three four' },
    'attributes and comments': { input: '<span class="searchmatch">hit</span><!-- x --> here', expected: 'hit here' },
    'named entities': { input: 'a &amp; b &quot;c&quot; &lt;d&gt; e&nbsp;f &mdash; g', expected: 'a & b "c" <d> e f — g' },
    'numeric entities': { input: 'city&#x27;s &#39;x&#39; &#8364;', expected: "city's 'x' €" },
    'escaped markup stays text': { input: '&lt;b&gt;not bold&lt;/b&gt;', expected: '<b>not bold</b>' },
    'unknown entity kept': { input: '&foo; &#0; &#xD800;', expected: '&foo; &#0; &#xD800;' },
    'whitespace collapsed and trimmed': { input: '  a \n\t b  ', expected: 'a b' },
    'a lone < is text': { input: '1 < 2 and 3 > 2', expected: '1 < 2 and 3 > 2' },
  };
  for (const [name, { input, expected }] of Object.entries(cases)) {
    it(name, () => expect(stripHtml(input)).toBe(expected));
  }

  it('decodeEntities alone leaves tags', () => expect(decodeEntities('<b>&amp;</b>')).toBe('<b>&</b>'));
});
