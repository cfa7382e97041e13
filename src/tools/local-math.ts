/**
 * `wolfram_alpha` without Wolfram|Alpha: arithmetic, powers, roots, derivatives and unit conversions
 * answered in the page (or in Node) by mathjs, written as Wolfram|Alpha's LLM API writes its answers
 * (`Query:`, `Input:`, `Result:` sections) so a model reads what it reads from the real service.
 * No `Source:` section: the micro model is trained on the service's sections only (Query, Input,
 * Result), so the text keeps to those; the tool's description and the card say where the answer came from.
 *
 * Invariants: a query runs only when its parsed tree is numbers, `x`, constants, units, arithmetic
 * operators, parentheses and the ALLOWED functions (no assignment, arrays, ranges, matrices, strings,
 * objects or other functions: `range(1, 1e9)` or `zeros(1e5, 1e5)` would hang the page); the mathjs
 * instance also has import, createUnit, parse/evaluate/compile, simplify and resolve disabled.
 * Anything else (integrals, equations, words) is a ToolError that says plainly what local math can do.
 */
import { all, create, type MathNode } from 'mathjs';
import { FAILURE_TEXTS } from './failure-texts';
import { ToolError } from './tool';

const math = create(all!, { number: 'number', precision: 14 });
// Kept before they are disabled: the parser itself, and the derivative.
const parse = math.parse;
const derivative = math.derivative;
const refuse = (name: string) => () => {
  throw new Error(`${name} is disabled`);
};
math.import(
  Object.fromEntries(['import', 'createUnit', 'evaluate', 'parse', 'compile', 'simplify', 'resolve', 'reviver', 'derivative', 'rationalize'].map((n) => [n, refuse(n)])),
  { override: true },
);

const CANNOT = FAILURE_TEXTS.localMathCannot();

/** How the tool card names this provider (the model's text has no source line: Wolfram's sections only). */
export const LOCAL_MATH_SOURCE = 'local math';

/** Wolfram|Alpha-shaped text for `query`, or a ToolError when local math cannot answer it. */
export function localMath(query: string): string {
  const q = query.trim();
  const d = /^(?:the\s+)?(?:derivative of|differentiate|d\/dx)\s*(.+?)(?:\s+with respect to x)?$/i.exec(q);
  if (d) {
    const expr = expression(d[1]!);
    const node = parseOrRefuse(expr, q);
    const result = derivative(node, 'x');
    const input = `d/dx(${wolframText(node)})`;
    return answer(q, input, `${input} = ${wolframText(result)}`);
  }
  const root = /^(?:the\s+)?(square|cube) root of\s+(.+)$/i.exec(q);
  if (root) {
    const fn = root[1]!.toLowerCase() === 'square' ? 'sqrt' : 'cbrt';
    const node = parseOrRefuse(`${fn}(${expression(root[2]!)})`, q);
    return answer(q, wolframText(node), value(node, q));
  }
  const node = parseOrRefuse(expression(q.replace(/^(?:what is|calculate|compute|convert)\s+/i, '').replace(/\?$/, '')), q);
  return answer(q, wolframText(node), value(node, q));
}

/** Wolfram's operators and words as mathjs reads them: × ÷ − → * / -, "to the power of" → ^. */
function expression(text: string): string {
  return text
    .replace(/[×·]/g, '*')
    .replace(/÷/g, '/')
    .replace(/[−–]/g, '-')
    .replace(/\s+to the power of\s+/gi, '^')
    .replace(/\bsquared\b/gi, '^2')
    .replace(/\bcubed\b/gi, '^3')
    .replace(/(\d),(\d{3})\b/g, '$1$2')
    .trim();
}

/** Functions a query may call: elementary ones, each O(1) on a number. */
const ALLOWED = new Set(['sqrt', 'cbrt', 'nthRoot', 'pow', 'exp', 'log', 'log10', 'log2', 'abs', 'round', 'floor', 'ceil', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'tanh']);
const CONSTANTS = new Set(['x', 'pi', 'e', 'tau', 'phi']);
const OPERATORS = new Set(['add', 'subtract', 'multiply', 'divide', 'pow', 'unaryMinus', 'unaryPlus', 'to', 'mod', 'dotMultiply', 'dotDivide']);

function parseOrRefuse(expr: string, query: string): MathNode {
  if (expr === '' || /\b(?:integra\w*|solve|limit|sum of)\b|=/i.test(expr)) throw new ToolError(`${CANNOT}: "${query}"`);
  let node: MathNode;
  try {
    node = parse(expr);
  } catch {
    throw new ToolError(`${CANNOT}: "${query}" is not an expression it can read`);
  }
  const refused = disallowed(node);
  if (refused) throw new ToolError(`${CANNOT}: "${query}" uses ${refused}`);
  return node;
}

/** The first part of the tree outside the allowed subset, in words; null when all of it is allowed. */
function disallowed(root: MathNode): string | null {
  let found: string | null = null;
  const functionNames = new Set<MathNode>();
  root.traverse((n) => {
    if (found) return;
    const node = n as MathNode & { fn?: MathNode & { name?: string }; name?: string; value?: unknown; op?: string };
    switch (node.type) {
      case 'ConstantNode':
        if (typeof node.value !== 'number') found = 'a value that is not a number';
        return;
      case 'ParenthesisNode':
        return;
      case 'OperatorNode':
        if (!OPERATORS.has(String((node as { fn?: unknown }).fn))) found = `the operator ${node.op ?? '?'}`;
        return;
      case 'FunctionNode':
        if (!node.fn?.name || !ALLOWED.has(node.fn.name)) found = `the function ${node.fn?.name ?? '?'}`;
        else functionNames.add(node.fn);
        return;
      case 'SymbolNode':
        if (functionNames.has(node)) return;
        if (!CONSTANTS.has(node.name!) && !math.Unit.isValuelessUnit(node.name!)) found = `the name ${node.name}`;
        return;
      default:
        found = `a ${node.type.replace(/Node$/, '').toLowerCase()}`;
    }
  });
  return found;
}

function value(node: MathNode, query: string): string {
  let out: unknown;
  try {
    out = node.compile().evaluate({});
  } catch (e) {
    throw new ToolError(`${CANNOT}: "${query}" could not be evaluated (${e instanceof Error ? e.message : String(e)})`);
  }
  if (typeof out === 'number') {
    if (!Number.isFinite(out)) throw new ToolError(`local math: "${query}" has no finite value`);
    return math.format(out, { precision: 14, lowerExp: -9, upperExp: 21 });
  }
  if (math.isUnit(out)) return math.format(out, { precision: 10 });
  throw new ToolError(`${CANNOT}: "${query}" is not a single number or quantity`);
}

/** mathjs's `3 * x ^ 2` as Wolfram writes it: `3 x^2`. */
function wolframText(node: MathNode): string {
  return node
    .toString({ implicit: 'hide' })
    .replace(/\s*\^\s*/g, '^')
    .replace(/(\d)\s*\*\s*(?=[a-z(])/gi, '$1 ')
    .replace(/\s*\*\s*/g, '×');
}

function answer(query: string, input: string, result: string): string {
  return [`Query:\n"${query}"`, `Input:\n${input}`, `Result:\n${result}`].join('\n\n');
}
