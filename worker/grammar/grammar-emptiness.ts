/**
 * Whether a grammar admits any finite string, read from XGrammar's normalized print of it (one rule a
 * line: `name ::= ((a b) | ("" ) | …)`, then maybe a lookahead `(=(…))`): a rule is productive when one
 * of its alternatives holds only literals, character classes and productive rules. What this cannot
 * read counts as productive, so a grammar is refused only when it surely admits nothing.
 */
type Token = { kind: 'name'; text: string } | { kind: 'terminal' } | { kind: '(' | ')' | '|' | '(=' };

export function admitsSomeString(printed: string, root = 'root'): boolean {
  const rules = new Map<string, string[][]>();
  for (const line of printed.split('\n')) {
    const at = line.indexOf(' ::= ');
    if (at < 0) continue;
    const alternatives = alternativesOf(tokenize(line.slice(at + 5)));
    if (!alternatives) return true;
    rules.set(line.slice(0, at).trim(), alternatives);
  }
  if (!rules.has(root)) return true;
  const productive = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, alternatives] of rules) {
      if (productive.has(name)) continue;
      if (alternatives.some((names) => names.every((n) => productive.has(n) || !rules.has(n)))) {
        productive.add(name);
        changed = true;
      }
    }
  }
  return productive.has(root);
}

/** The rule names each top-level alternative uses; null when the body is not in the normalized shape. */
function alternativesOf(tokens: Token[] | null): string[][] | null {
  if (!tokens || tokens[0]?.kind !== '(') return null;
  const alternatives: string[][] = [[]];
  let depth = 0;
  for (const token of tokens) {
    if (token.kind === '(' || token.kind === '(=') {
      if (token.kind === '(=' && depth === 0) break;
      depth++;
    } else if (token.kind === ')') {
      depth--;
      if (depth === 0) break;
    } else if (token.kind === '|') {
      if (depth !== 1) return null;
      alternatives.push([]);
    } else if (token.kind === 'name') {
      if (depth !== 2) return null;
      alternatives.at(-1)!.push(token.text);
    }
  }
  return alternatives;
}

function tokenize(body: string): Token[] | null {
  const tokens: Token[] = [];
  for (let i = 0; i < body.length; ) {
    const c = body[i]!;
    if (c === ' ') i++;
    else if (c === '"' || c === '[') {
      const close = c === '"' ? '"' : ']';
      let j = i + 1;
      while (j < body.length && body[j] !== close) j += body[j] === '\\' ? 2 : 1;
      if (j >= body.length) return null;
      i = j + 1;
      while ('*+?'.includes(body[i] ?? '-')) i++;
      tokens.push({ kind: 'terminal' });
    } else if (c === '(' && body[i + 1] === '=') {
      tokens.push({ kind: '(=' });
      i += 2;
    } else if (c === '(' || c === ')' || c === '|') {
      tokens.push({ kind: c });
      i++;
    } else {
      const name = /^[A-Za-z0-9_]+/.exec(body.slice(i))?.[0];
      if (!name) return null;
      tokens.push({ kind: 'name', text: name });
      i += name.length;
    }
  }
  return tokens;
}
