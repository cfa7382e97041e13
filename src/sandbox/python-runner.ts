/**
 * The Python half of the worker: `run(code, limit)` runs one cell of model code in `__main__` (so
 * state persists across runs, like a notebook) and returns [result, error, missing]: the repr of
 * the last expression and the traceback as {text, dropped} (cut to `limit`: the repr keeps its
 * start, the traceback its end) or None, and the top-level name of a module that was not found or
 * None. Every Python exception ends here as data; only a failure of the runtime itself escapes to
 * JavaScript. Tracebacks start at the model's code, compiled as `<exec>` (this runner must be
 * compiled under another name). Output is flushed before returning so none is lost.
 * `pending_tasks()` counts asyncio tasks not done (the worker asks after a run: any left means the
 * interpreter is replaced). Cancelling a timer handle clears its JS timer, so a timeout that did not
 * fire (asyncio.wait_for finishing early) leaves no timer behind to be mistaken for leftover work.
 */
export const PYTHON_RUNNER = `
import asyncio
import sys
import traceback
import weakref
import __main__
import js
import pyodide.webloop as _webloop
from pyodide.code import eval_code_async

_api_schedule = _webloop.scheduleCallback
_js_timers = weakref.WeakKeyDictionary()
_scheduled = []

def _schedule(callback, ms):
    # Pyodide's scheduler sends delays of up to 2 ms through a port; longer ones become JS timers.
    if ms <= 2:
        return _api_schedule(callback, ms)
    _scheduled.append((js.setTimeout(callback, ms), callback))

def _call_later(self, delay, callback, *args, context=None):
    _scheduled.clear()
    handle = _original_call_later(self, delay, callback, *args, context=context)
    if _scheduled:
        _js_timers[handle] = _scheduled.pop()
    return handle

def _cancel(self):
    _original_cancel(self)
    timer = _js_timers.pop(self, None)
    if timer is not None:
        js.clearTimeout(timer[0])
        try:
            timer[1].destroy()
        except Exception:
            pass  # it fired already: a once-callable destroys itself

_webloop.scheduleCallback = _schedule
_original_call_later = _webloop.WebLoop.call_later
_webloop.WebLoop.call_later = _call_later
_original_cancel = asyncio.Handle.cancel
asyncio.Handle.cancel = _cancel

def pending_tasks():
    loop = asyncio.get_event_loop()
    return sum(1 for task in asyncio.all_tasks(loop) if not task.done())

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
