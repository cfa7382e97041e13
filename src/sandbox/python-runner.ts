/**
 * The Python half of the worker: `run(code, limit)` runs one cell of model code in `__main__` (so
 * state persists across runs, like a notebook) and returns [result, error, missing]: the repr of
 * the last expression and the traceback as {text, dropped} (cut to `limit`: the repr keeps its
 * start, the traceback its end) or None, and the top-level name of a module that was not found or
 * None. Every Python exception ends here as data; only a failure of the runtime itself escapes to
 * JavaScript. Tracebacks start at the model's code, compiled as `<exec>` (this runner must be
 * compiled under another name). Output is flushed before returning so none is lost.
 */
export const PYTHON_RUNNER = `
import sys
import traceback
import __main__
from pyodide.code import eval_code_async

def _cut(text, limit, tail):
    dropped = max(len(text) - limit, 0)
    return {"text": text[dropped:] if tail else text[:limit], "dropped": dropped}

def _from_model_code(tb):
    while tb is not None and tb.tb_frame.f_code.co_filename != "<exec>":
        tb = tb.tb_next
    return tb

async def run(code, limit):
    result = error = missing = None
    try:
        value = await eval_code_async(code, __main__.__dict__, filename="<exec>")
        if value is not None:
            result = _cut(repr(value), limit, False)
    except BaseException as e:
        text = "".join(traceback.format_exception(type(e), e, _from_model_code(e.__traceback__)))
        error = _cut(text, limit, True)
        if isinstance(e, ModuleNotFoundError) and e.name:
            missing = e.name.split(".")[0]
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
    return [result, error, missing]
`;
