/**
 * Python source of the cell harness: `run(code, limit)` runs one cell of model code in `__main__`'s
 * dict (state persists across runs, like a notebook) and returns [result, error, missing]: the repr
 * of the last expression and the traceback as {text, dropped} (cut to `limit`: the repr keeps its
 * start, the traceback its end) or None, and the top-level name of a module that was not found or
 * None. Every Python exception ends here as data. Output is flushed before returning.
 *
 * Invariants:
 * - It is compiled once, before any model code, and executed into a fresh globals dict for every
 *   run (cell-harness.ts): its names are the objects captured then (C builtins, the AST classes,
 *   traceback.format_exception, `__main__`'s dict), never looked up where model code could
 *   replace them. What model code does to one run's harness dies with that run, and is reported.
 * - The cell is compiled and evaluated with the C builtins `compile` and `eval` (top-level await
 *   allowed): the body, then the last expression on its own, unless the cell ends with `;`.
 * - Tracebacks start at the model's code, compiled as `<exec>` (this file is compiled under another
 *   name); source lines that earlier runs planted for `<exec>` in linecache are dropped first.
 * - The garbage collector is off while the harness compiles the cell and formats its outcome, so
 *   no __del__ or gc callback that earlier code left can run in between and see the code first.
 */
export const PYTHON_CELL = `
def _dedent(source):
    lines = source.split("\\n")
    margin = None
    for line in lines:
        text = line.lstrip()
        if text:
            indent = line[:len(line) - len(text)]
            if margin is None:
                margin = indent
            else:
                while not indent.startswith(margin):
                    margin = margin[:-1]
    if not margin:
        return source
    return "\\n".join(line[len(margin):] if line.strip() else "" for line in lines)

def _quiet(source, node):
    # The cell ends with ";" after its last expression (closing brackets and spaces aside).
    lines = source.split("\\n")
    rest = lines[node.end_lineno - 1].encode()[node.end_col_offset:].decode()
    rest = "\\n".join([rest] + lines[node.end_lineno:])
    return rest.lstrip(" \\t\\r\\n\\\\)").startswith(";")

def _compile(source):
    source = _dedent(source)
    module = compile(source, "<exec>", "exec", ONLY_AST | TOP_LEVEL_AWAIT, True)
    last = None
    body = module.body
    if body and type(body[-1]) is Expr and not _quiet(source, body[-1]):
        last = compile(Expression(body.pop().value), "<exec>", "eval", TOP_LEVEL_AWAIT, True)
    return compile(module, "<exec>", "exec", TOP_LEVEL_AWAIT, True), last

def _cut(text, limit, tail):
    dropped = max(len(text) - limit, 0)
    return {"text": text[dropped:] if tail else text[:limit], "dropped": dropped}

def _from_model_code(tb):
    while tb is not None and tb.tb_frame.f_code.co_filename != "<exec>":
        tb = tb.tb_next
    return tb

def _forget_planted_lines():
    line_cache.pop("<exec>", None)
    for key in [key for key in code_line_cache if type(key) is not tuple or not key or key[0] == "<exec>"]:
        del code_line_cache[key]

async def run(code, limit):
    result = error = missing = None
    collecting = gc_isenabled()
    gc_disable()
    try:
        try:
            body, last = _compile(code)
        finally:
            if collecting:
                gc_enable()
        value = eval(body, main)
        if body.co_flags & CO_COROUTINE:
            await value
        if last is not None:
            value = eval(last, main)
            if last.co_flags & CO_COROUTINE:
                value = await value
            if value is not None:
                result = _cut(repr(value), limit, False)
    except BaseException as e:
        collecting = gc_isenabled()
        gc_disable()
        try:
            _forget_planted_lines()
            text = "".join(format_exception(type(e), e, _from_model_code(e.__traceback__)))
            error = _cut(text, limit, True)
            if issubclass(type(e), ModuleNotFoundError) and type(e.name) is str and e.name:
                missing = e.name.split(".")[0]
        finally:
            if collecting:
                gc_enable()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
    return [result, error, missing]
`;
