/**
 * Texts for tokenizer tests, keyed by what they exercise. Every sample is well-formed UTF-16.
 * `CORPUS` avoids the few characters where JavaScript ports of Llama 3's regex differ from Meta's
 * (see `DIVERGENT`), so any correct encoder must agree with the references on all of it.
 */

export const CORPUS: Readonly<Record<string, string>> = {
  'meta test sentence': 'This is a test sentence.',
  'english prose': 'The quick brown fox jumps over the lazy dog. It wasn\'t me, she said; "really?"\n',
  'contractions lower': "we'll they're I've I'm she's it'd don't can't you'd",
  'contractions upper': "DON'T WE'LL THEY'RE I'VE I'M SHE'S IT'D YOU'D",
  'contractions mixed case': "Don'T wE'Ll tHeY'rE I'vE i'M sHe'S iT'd 'S 'T 'Re 'rE 'LL 'lL 'D",
  'apostrophes alone': "' '' ''' 'x 'xyz '42 rock'n'roll o'clock '\n'",
  'typographic apostrophe': 'don’t we’ll ‘quoted’ “double”',
  'numbers': '0 7 42 123 1234 12345 123456 1234567 12345678 123456789 1234567890 3.14159 -2.5e10 1,000,000 0x1F 0b1010 1_000',
  'number words': 'v1.2.3 A4 4A 2024-08-11T12:34:56Z 12:00 $99.99 50% #1 №5 ½ ² ٣٤٥ ४२ 一二三',
  'whitespace runs': 'a  b   c    d     e\t\tf \t g\n\n\nh \n i  \n\n  j   ',
  'tabs and indentation': '\tdef f():\n\t\treturn 1\n    if x:\n        pass\n',
  'crlf': 'line one\r\nline two\r\n\r\nline four\rcr only\n\r\n',
  'only spaces': '          ',
  'only newlines': '\n\n\n\n\n\n',
  'trailing space': 'end with space ',
  'leading space': ' start with space',
  'python': 'import json\n\ndef main(argv: list[str]) -> int:\n    """Docstring."""\n    data = {"a": 1, \'b\': [1, 2, 3]}\n    for i, x in enumerate(argv):\n        print(f"{i:>3}: {x!r}")\n    return 0 if data else -1\n',
  'typescript': 'export async function* stream<T>(src: AsyncIterable<T>): AsyncGenerator<T> {\n  for await (const x of src) yield x ?? (null as never);\n}\nconst re = /<\\|[a-z_]+\\|>/g; // regex\n',
  'rust': 'fn main() -> Result<(), Box<dyn std::error::Error>> {\n    let v: Vec<u8> = vec![0xFF; 16];\n    println!("{:?}", &v[..4]);\n    Ok(())\n}\n',
  'c': '#include <stdio.h>\nint main(void) { char *s = "hi\\n"; printf("%s%d\\n", s, (int)sizeof s); return 0; }\n',
  'sql and shell': 'SELECT id, name FROM users WHERE age >= 18 AND name LIKE \'%o%\';\n$ ls -la ~/src | grep -v "^d" && echo $HOME > /tmp/out.txt 2>&1\n',
  'html': '<!DOCTYPE html><html lang="en"><body><p class="x">Hello&nbsp;<b>world</b></p><br/></body></html>',
  'json': '{"query": "Reykjavik population", "results": [{"title": "Reykjavik", "snippet": "about 139,000 in 2024."}], "ok": true, "n": null, "x": -1.5e-7}',
  'json pretty': '{\n    "type": "function",\n    "function": {\n        "name": "get_weather",\n        "parameters": {"city": {"type": "string"}}\n    }\n}',
  'urls': 'See https://example.com/path/to/page?q=llama+3.1&lang=en#section-2 or http://127.0.0.1:8080/ and mailto:a.b@c.io, ftp://x.y/z.',
  'markdown': '# Title\n\n- item **bold** _it_ `code`\n1. [link](https://x.y)\n\n```js\nconsole.log(1)\n```\n> quote\n| a | b |\n|---|---|\n',
  'punctuation runs': '!!! ??? ... --- ___ *** ### @@@ ((( ))) [[[ ]]] {{{ }}} ;;; ::: ,,, /// \\\\\\ ||| ~~~ ``` ^^^ &&& %%% $$$',
  'accents': 'Café naïve résumé façade Ångström Øresund Straße Æsir œuvre coöperate',
  'combining marks': 'e\u0301 a\u0308 n\u0303 Z\u0351\u0352\u0353a\u035b\u035c\u035dl\u0360g\u0361o\u0362 \u0915\u094d\u0937 \u1100\u1161\u11a8',
  'cjk': '中文字符测试。日本語のテキストです。한국어 텍스트입니다。漢字かなカナ混じり文、全角！？（）',
  'cjk long': '我们正在测试分词器对于很长的中文句子的处理能力这句话没有任何标点符号所以会形成一个很长的预分词片段',
  'emoji': '😀 👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈 ❤️ 🇮🇸 🤖🤖🤖 ✨ 1️⃣ #️⃣',
  'rtl': 'مرحبا بالعالم! هذا اختبار. שלום עולם, זה מבחן. \u202Bembedded\u202C \u200Fmark',
  'scripts': 'Привет, мир! Γειά σου κόσμε. नमस्ते दुनिया। สวัสดีชาวโลก ሰላም ዓለም Բարեւ Ἀθῆναι',
  'math and symbols': '∀x∈ℝ: x² ≥ 0 ⇒ √(x²) = |x|; ∑ᵢ aᵢ ≈ ∫ f(t) dt ± ε; ℵ₀ < 𝔠; ⊕⊗ → ← ↔ ™ © ®',
  'astral plane': '𝓗𝓮𝓵𝓵𝓸 𝕎𝕠𝕣𝕝𝕕 𐍈 𝄞 🀄 𠀀𠀁 𒀀',
  'control and odd spaces': 'a\u0000b\u0001c\u001fd\u007fe\u00a0f\u2003g\u3000h\u200bi\u2028j\u2029k\u000bl\u000cm',
  'literal special tokens': '<|eot_id|> <|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nhi<|eom_id|><|python_tag|>x',
  'special-like text': '<|not_a_token|> <| eot_id |> <|EOT_ID|> <|eot_id| |eot_id|> <<|eot_id|>> <|reserved_special_token_999|>',
  'tool call text': '<|python_tag|>brave_search.call(query="Reykjavik population")',
  'function tag': '<function=get_weather>{"city": "Paris"}</function> [f(a=1), g(b="x")]',
  'long word': 'Pneumonoultramicroscopicsilicovolcanoconiosis supercalifragilisticexpialidocious',
  'long repeated char': 'a'.repeat(300) + ' ' + 'z'.repeat(97) + ' ' + '='.repeat(120),
  'long number': '3141592653589793238462643383279502884197169399375105820974944592307816406286',
  'mixed everything': 'Résumé: 3 items—“quoted” 中文 😀\r\n\t- x=1;  y = [1,2,3]\n\n\n<|eot_id|>\u00a0end',
};

/**
 * Samples whose ids depend on where the Rust regex (Meta's encoder, Hugging Face's tokenizers) and the
 * JavaScript ports cut pieces. Rust's `\s` is Unicode White_Space (U+0085 yes, U+FEFF no); JS's `\s`
 * is the reverse, which llama3-tokenizer-js uses (transformers.js maps `\s` to White_Space). Rust's
 * `(?i:'s)` also matches `'ſ` (U+017F folds to s); both JS ports use `[sS]`.
 * Each entry: the text, and the ids Meta's encoder gives (this encoder's; derivation in the tests).
 */
export const DIVERGENT: Readonly<Record<string, string>> = {
  'BOM then comment': '\uFEFF// header',
  'BOM then hash': '\uFEFF#include <x>',
  'NEL before a word': 'x \u0085lardan',
  'long s contraction': "x'ſlardan",
};

/** About `size` characters of mixed text: the corpus repeated with varying numbers and words. */
export function mixedText(size: number): string {
  const samples = Object.values(CORPUS);
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const part = `${samples[i % samples.length]!} [${i * 7919}] word${i % 1013}\n`;
    parts.push(part);
    length += part.length;
  }
  return parts.join('');
}
