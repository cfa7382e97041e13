/**
 * The Python half of the worker's startup, run once into its own scope before any model code: it
 * makes asyncio's timers visible to the worker (`pending_tasks()` counts asyncio tasks not done; the
 * worker asks after a run: any left means the interpreter is replaced; cancelling a timer handle
 * clears its JS timer, so a timeout that did not fire leaves no timer behind to be mistaken for
 * leftover work), installs the audit hook that refuses every later audit hook, and ends with the
 * expression the worker keeps (cell-harness.ts): the harness's code objects, the objects each
 * harness scope is given, the hooks to watch, and the snapshot of everything the harness runs on.
 *
 * The scope is given `notify` (a JS function told what a refused hook tried), `cell_source`
 * (python-cell.ts) and `integrity_source` (python-integrity.ts).
 */
export const PYTHON_RUNNER = `
import asyncio
import ast
import builtins
import copyreg
import gc
import itertools
import functools
import linecache
import operator
import sys
import traceback
import types
import weakref
import __main__
import _asyncio
import js
import pyodide.webloop as _webloop

__warningregistry__ = {}
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

# The audit hook, compiled apart with nothing but RuntimeError in its scope: it refuses (and reports
# through \`notify\`) every later audit hook, which would see the harness's code as it runs, and every
# change to itself or to the code and defaults of the functions the harness runs on.
_GUARD = """
def guard(event, args, notify=None, me=None, pinned=(), names=("__code__", "__defaults__", "__kwdefaults__")):
    if event == "sys.addaudithook":
        notify("tried to add an audit hook (sys.addaudithook)")
        raise RuntimeError("the sandbox refuses audit hooks")
    if event == "object.__setattr__" and (args[0] is me or args[1] in names and args[0] in pinned):
        notify("tried to replace " + args[1] + " of " + args[0].__qualname__ + ", which the harness runs on")
        raise RuntimeError("the sandbox refuses changes to the functions its harness runs on")
"""

# The roots of what the harness runs on (python-integrity.ts): this scope, builtins, the event loop
# machinery that drives a cell, Pyodide's code helpers (the imports of a run are found with them),
# the AST classes the harness compiles with, and what formats a traceback.
_ROOT_MODULES = (
    "asyncio", "asyncio.base_events", "asyncio.base_futures", "asyncio.base_tasks", "asyncio.coroutines",
    "asyncio.events", "asyncio.exceptions", "asyncio.format_helpers", "asyncio.futures", "asyncio.tasks",
    "contextvars", "pyodide.webloop", "pyodide.ffi", "pyodide.code", "_pyodide._base", "_pyodide._future_helper",
    "ast", "_ast", "traceback", "linecache", "_colorize", "textwrap", "keyword",
)

def _harness():
    loop = asyncio.get_event_loop()
    cell_names = dict(
        compile=compile, eval=eval, repr=repr, type=type, issubclass=issubclass, max=max, len=len,
        tuple=tuple, str=str, BaseException=BaseException, ModuleNotFoundError=ModuleNotFoundError,
        Expr=ast.Expr, Expression=ast.Expression, ONLY_AST=ast.PyCF_ONLY_AST,
        TOP_LEVEL_AWAIT=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, CO_COROUTINE=0x80,
        format_exception=traceback.format_exception, main=__main__.__dict__, sys=sys,
        gc_isenabled=gc.isenabled, gc_disable=gc.disable, gc_enable=gc.enable,
        line_cache=linecache.cache, code_line_cache=linecache._interactive_cache,
    )
    integrity_names = dict(
        ModuleType=types.ModuleType, FunctionType=types.FunctionType, LruWrapper=functools._lru_cache_wrapper,
        IMMUTABLE_TYPE=1 << 8, dict_items=dict.items, dict=dict, set=set, frozenset=frozenset, len=len,
        tuple=tuple, map=map, zip=zip, id=id, type=type, str=str, issubclass=issubclass, reversed=reversed,
        staticmethod=staticmethod, classmethod=classmethod, property=property, ValueError=ValueError,
        BaseException=BaseException, chain=itertools.chain.from_iterable, values_of=operator.methodcaller("values"),
        code_of=operator.attrgetter("__code__"), defaults_of=operator.attrgetter("__defaults__"),
        contents_of=operator.attrgetter("cell_contents"), mro_of=operator.attrgetter("__mro__"),
        all=all, is_=operator.is_, running_loop=_asyncio._get_running_loop, the_loop=loop, slotnames=copyreg._slotnames,
    )
    roots = [("the sandbox runner", globals()), ("builtins", builtins.__dict__)]
    roots += [(name, sys.modules[name]) for name in _ROOT_MODULES]
    roots.append(("the event loop", loop, ("_task_factory", "_debug", "_exception_handler")))
    roots.append(("the event loop policy", asyncio.events._event_loop_policy, ("_default_loop",)))
    integrity = {"__builtins__": {}}
    integrity.update(integrity_names)
    integrity_code = compile(integrity_source, "<sandbox-integrity>", "exec")
    exec(integrity_code, integrity)
    snapshot, functions = integrity["snapshot"](tuple(roots), False, True)
    scope = {"__builtins__": {}, "RuntimeError": RuntimeError}
    exec(_GUARD, scope)
    guard = scope["guard"]
    guard.__defaults__ = (notify, guard, functions, guard.__defaults__[3])
    sys.addaudithook(guard)
    return (
        compile(cell_source, "<sandbox-harness>", "exec"),
        tuple(cell_names.items()),
        (("__import__", builtins.__import__),),
        integrity_code,
        tuple(integrity_names.items()),
        snapshot,
        dict,
        eval,
        (sys.gettrace, sys.getprofile, sys.monitoring.get_tool),
        (gc.isenabled, gc.disable, gc.enable, gc.callbacks, len),
    )

_harness()
`;
