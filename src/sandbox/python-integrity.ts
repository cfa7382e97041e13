/**
 * Python source that pins what the cell harness runs on and later says whether any of it changed.
 * `snapshot(roots, read_functions, fill_caches)` walks each root — a module, a dict, a class, or an instance
 * given with the attribute names to pin — through its dict entries and the classes and functions
 * found there (class dicts, methods, properties, static and class methods, closures, keyword
 * defaults), and returns an immutable tuple holding the objects walked, their labels, and everything
 * that could change what the harness does: each dict's keys and values, each closure cell's
 * contents, each class's metaclass and __mro__, each module's class, the pinned attributes of each
 * instance and, with `read_functions`, each function's __code__ and __defaults__ (without it the
 * caller's audit hook refuses changes to those instead: reading them is an audited event, one
 * Python call each). Other modules and the dicts a root refers to (caches, `__main__`'s dict) are
 * pinned by identity but not walked: what is in them is model state, like a patched print. With
 * `fill_caches` (at startup only: it calls Python-level copyreg) the caches Python adds to modules
 * and classes on first use are added first, so ordinary use of them is not a change.
 * `verify(snap)` returns None when every pinned object is still the same object, else a label
 * naming the first difference.
 *
 * Invariants:
 * - It runs in a fresh globals dict that holds only objects captured before any model code ran (C
 *   builtins and types, see cell-harness.ts) and an empty `__builtins__`: nothing model code can
 *   reach is looked up by name.
 * - verify() compares identities only, with C functions (type, map, tuple, all, operator.is_,
 *   attrgetter, methodcaller, chain) and never `id` (an audited event): it runs no model code, no
 *   __eq__, __hash__, property or __getattr__. The caller disables the garbage collector around it
 *   (no __del__ or gc callback mid-check).
 * - The running loop, where one is set, must be the captured event loop.
 */
export const PYTHON_INTEGRITY = `
def _fill_caches(obj):
    # What Python adds on first use, added now so that using it later is not a change: a module's
    # warning registry, a class's annotations cache and its __slotnames__ (copy and pickle).
    try:
        if type(obj) is ModuleType:
            obj.__dict__.setdefault("__warningregistry__", {})
        else:
            slotnames(obj)
        obj.__annotations__
    except BaseException:
        pass

def _walk(roots, fill):
    seen = set()
    modules, dicts, dict_labels, funcs, func_labels, cells, cell_labels, classes, class_labels = [], [], [], [], [], [], [], [], []
    instances, instance_labels, pinned = [], [], []
    stack = []
    for root in reversed(roots):
        if len(root) == 3:
            label, obj, names = root
            instances.append(obj)
            instance_labels.append(label)
            pinned.append((type(obj), names))
            stack.append((label + ".<class>", type(obj)))
        else:
            stack.append(root)
    while stack:
        label, obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        kind = type(obj)
        if kind is ModuleType or kind is dict:
            if kind is ModuleType:
                if fill:
                    _fill_caches(obj)
                modules.append(obj)
                obj = obj.__dict__
            dicts.append(obj)
            dict_labels.append(label)
            for key, value in dict_items(obj):
                if type(value) is not ModuleType and type(value) is not dict:
                    stack.append((label + "." + key if type(key) is str else label, value))
        elif kind is FunctionType:
            funcs.append(obj)
            func_labels.append(label)
            if type(obj.__kwdefaults__) is dict:
                stack.append((label + ".__kwdefaults__", obj.__kwdefaults__))
            for cell in obj.__closure__ or ():
                try:
                    contents = cell.cell_contents
                except ValueError:
                    continue
                cells.append(cell)
                cell_labels.append(label)
                stack.append((label, contents))
        elif kind is staticmethod or kind is classmethod:
            stack.append((label, obj.__func__))
        elif kind is property:
            for accessor in (obj.fget, obj.fset, obj.fdel):
                if accessor is not None:
                    stack.append((label, accessor))
        elif kind is LruWrapper:
            stack.append((label, obj.__wrapped__))
        elif issubclass(kind, type) and not obj.__flags__ & IMMUTABLE_TYPE:
            if fill:
                _fill_caches(obj)
            classes.append(obj)
            class_labels.append(label)
            mapping = obj.__dict__
            dicts.append(mapping)
            dict_labels.append(label)
            for key, value in zip(mapping.keys(), mapping.values()):
                stack.append((label + "." + key if type(key) is str else label, value))
    objects = (tuple(modules), tuple(dicts), tuple(funcs), tuple(cells), tuple(classes), tuple(instances), tuple(pinned))
    labels = (tuple(dict_labels), tuple(func_labels), tuple(cell_labels), tuple(class_labels), tuple(instance_labels))
    return objects, labels

def _attributes(instance, pin):
    cls, names = pin
    if type(instance) is not cls:
        return ()
    attributes = instance.__dict__
    return tuple(attributes) + tuple(map(attributes.get, names))

def _current(objects):
    modules, dicts, funcs, cells, classes, instances, pinned = objects
    return tuple(chain((
        map(type, modules),
        chain(dicts),
        chain(map(values_of, dicts)),
        map(code_of, funcs),
        map(defaults_of, funcs),
        map(contents_of, cells),
        map(type, classes),
        map(mro_of, classes),
    )))

def _same(now, then):
    return len(now) == len(then) and all(map(is_, now, then))

def _same_loop():
    running = running_loop()
    return running is None or running is the_loop

def snapshot(roots, read_functions, fill_caches):
    # Returns (snap, functions). With read_functions false the functions' __code__ and __defaults__
    # are left out of snap (reading them is an audited event, and the check must stay cheap): the
    # caller's audit hook refuses every change to them instead, given \`functions\`.
    objects, labels = _walk(roots, fill_caches)
    functions = frozenset(objects[2])
    if not read_functions:
        objects = objects[:2] + ((),) + objects[3:]
        labels = (labels[0], ()) + labels[2:]
    instances = tuple(map(_attributes, objects[5], objects[6]))
    return (objects, labels, tuple(map(len, objects[1])), _current(objects), instances), functions

def verify(snap):
    objects, labels, sizes, expected, instances = snap
    try:
        now = _current(objects)
        if _same(now, expected) and all(map(_same, map(_attributes, objects[5], objects[6]), instances)) and _same_loop():
            return None
        return _explain(objects, labels, sizes, expected, instances)
    except BaseException as e:
        return "the check itself failed (" + type(e).__name__ + ")"

def _explain(objects, labels, sizes, expected, instances):
    modules, dicts, funcs, cells, classes, instance_objects, pinned = objects
    dict_labels, func_labels, cell_labels, class_labels, instance_labels = labels
    for module in modules:
        if type(module) is not ModuleType:
            return "the class of a module was replaced"
    at = len(modules)
    for mapping, label, size in zip(dicts, dict_labels, sizes):
        if not _same(tuple(mapping), expected[at:at + size]):
            return label + ": a name was added, removed or renamed"
        at += size
    for mapping, label in zip(dicts, dict_labels):
        for key, value in zip(mapping.keys(), mapping.values()):
            if value is not expected[at]:
                return label + "." + (key if type(key) is str else "?") + " was replaced"
            at += 1
    checks = (
        (funcs, func_labels, code_of, ".__code__ was replaced"),
        (funcs, func_labels, defaults_of, ".__defaults__ was replaced"),
        (cells, cell_labels, contents_of, ": a closure variable was replaced"),
        (classes, class_labels, type, ": its metaclass changed"),
        (classes, class_labels, mro_of, ": its bases changed"),
    )
    for items, item_labels, getter, what in checks:
        for item, label in zip(items, item_labels):
            try:
                same = getter(item) is expected[at]
            except ValueError:
                same = False
            if not same:
                return label + what
            at += 1
    for instance, pin, then, label in zip(instance_objects, pinned, instances, instance_labels):
        if not _same(_attributes(instance, pin), then):
            return label + " was changed (its class or attributes)"
    if not _same_loop():
        return "another event loop was made the running loop"
    return "something the harness runs on changed"
`;
