/**
 * Custom JSON tools of a host page (Llama 3.1's custom-tool format: the schemas in the first user turn,
 * the call `{"name": ..., "parameters": {...}}` ended with eot), for the micro model's corpus: a small
 * family of host tools with varied names, descriptions and parameter names. One variant of
 * get_opening_hours is exactly the widget demo's (src/widget/demo.html).
 *
 * Argument values are drawn from small fixed sets (weekdays, currency codes, digits): after `"` in the
 * call's JSON they tokenize differently from the question's words, so they are learned per value, not
 * copied; names that must be copied go through search queries (after a space).
 */
import type { Rng } from './rng';
import { WIDGET_DEMO_DAY, WIDGET_DEMO_TOOL } from './widget-demo-tool';

export interface CustomToolUse {
  /** The schema as the prompt shows it (toolSchemaForPrompt's shape). */
  schema: object;
  name: string;
  /** The call's parameters. */
  args: Record<string, unknown>;
  question: string;
  /** The tool's result, as a host's execute returns it. */
  result: Record<string, unknown>;
  answer: string;
  values: string[];
}

type Split = 'train' | 'test';

interface ToolFamily {
  /** Draws a variant and a question for it; `renamed` replaces the variant's tool and parameter names. */
  use(rng: Rng, split: Split, renamed?: Renamed): CustomToolUse;
  /** A schema of this family for a tool the question does not need. */
  distractor(rng: Rng): object;
}

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const CURRENCIES = ['EUR', 'USD', 'GBP', 'JPY', 'CHF', 'NOK', 'SEK', 'CAD'];
const STATUSES = ['shipped', 'delivered', 'being packed', 'cancelled', 'out for delivery'];
const ITEMS = ['bread', 'croissants', 'bagels', 'muffins', 'cookies', 'pretzels', 'scones', 'donuts'];

function schema(name: string, description: string, properties: Record<string, object>, required: string[]): object {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties, required } } };
}

function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k]));
}

const time = (rng: Rng, lo: number, hi: number) => `${String(rng.int(lo, hi)).padStart(2, '0')}:${rng.pick(['00', '30'])}`;

/**
 * Made-up tool and parameter names for one family: a verb, a core and sometimes a suffix, so that
 * recalling a family's usual name stops paying and only copying the declared one works.
 */
interface NamePool {
  cores: readonly string[];
  /** Parameter names, one list per parameter of the family. */
  params: ReadonlyArray<readonly string[]>;
}

/** Draws the tool name and parameter names of a renamed variant. */
type Renamed = (pool: NamePool) => { name: string; params: string[] };

const VERBS = ['get_', 'check_', 'fetch_', 'lookup_', 'find_', 'query_', 'show_', 'read_', 'load_', ''];
const SUFFIXES = ['', '', '', '_info', '_now', '_v2', '_data', '_api'];

/** A Renamed that draws from `rng`; distinct parameters of a family keep distinct names. */
export function renamer(rng: Rng): Renamed {
  return (pool) => ({
    name: rng.pick(VERBS) + rng.pick(pool.cores) + rng.pick(SUFFIXES),
    params: pool.params.map((names) => rng.pick(names)),
  });
}

/** `v` with a made-up tool name and parameter name when `renamed` is given, else `v` itself. */
function renamedVariant<V extends { name: string; param: string }>(v: V, renamed: Renamed | undefined, pool: NamePool): V {
  if (!renamed) return v;
  const r = renamed(pool);
  return { ...v, name: r.name, param: r.params[0]! };
}

const HOURS_NAMES: NamePool = {
  cores: ['opening_hours', 'hours', 'store_hours', 'open_times', 'business_hours', 'shop_hours', 'opening_times', 'schedule', 'day_hours', 'venue_hours'],
  params: [['day', 'weekday', 'day_of_week', 'dayname', 'on_day', 'which_day', 'date_day']],
};
const ORDER_NAMES: NamePool = {
  cores: ['order_status', 'order', 'order_state', 'shipment', 'delivery_status', 'parcel_status', 'order_tracking', 'package', 'order_info'],
  params: [['order_id', 'order_number', 'id', 'order_no', 'order_ref', 'number', 'tracking_id', 'ref']],
};
const STOCK_NAMES: NamePool = {
  cores: ['stock', 'inventory', 'stock_level', 'availability', 'item_stock', 'supply', 'stock_count', 'product_stock'],
  params: [['item', 'product', 'name', 'item_name', 'article', 'product_name', 'what']],
};
const RATE_NAMES: NamePool = {
  cores: ['exchange_rate', 'fx_rate', 'currency_rate', 'rate', 'conversion_rate', 'forex', 'currency'],
  params: [['from', 'base', 'source', 'from_currency', 'have'], ['to', 'target', 'quote', 'to_currency', 'want']],
};

const openingHours: ToolFamily = {
  use(rng, split, renamed) {
    const v = renamedVariant(rng.pick([
      // The widget demo's own tool, from the one definition the demo page and the tests share.
      { name: WIDGET_DEMO_TOOL.name, description: WIDGET_DEMO_TOOL.description, param: 'day', paramDescription: WIDGET_DEMO_DAY.description },
      { name: 'get_opening_hours', description: 'Opening hours of the shop on a given weekday', param: 'day', paramDescription: 'Weekday, e.g. Monday' },
      { name: 'opening_hours', description: 'When the museum is open on a weekday', param: 'weekday', paramDescription: 'Day of the week' },
      { name: 'get_hours', description: 'Opening hours of the library for one day of the week', param: 'day', paramDescription: 'The weekday' },
    ]), renamed, HOURS_NAMES);
    const day = rng.pick(DAYS);
    const open = time(rng, 6, 10);
    const close = day === 'Sunday' && rng.chance(0.5) ? '12:00' : time(rng, 16, 21);
    const templates = split === 'train'
      ? ['When are you open on {day}?', 'What are your opening hours on {day}?', 'What time do you open on {day}?', 'Are you open on {day}?', 'Opening hours on {day}?']
      : ['How late are you open on {day}?', 'Can I come by on {day}? When are you open?'];
    return {
      schema: schema(v.name, v.description, { [v.param]: { type: 'string', description: v.paramDescription } }, [v.param]),
      name: v.name,
      args: { [v.param]: day },
      question: fill(rng.pick(templates), { day }),
      result: { [v.param]: day, open, close },
      answer: fill(rng.pick(['On {day} we are open from {open} to {close}.', 'On {day} the opening hours are {open} to {close}.', 'We open at {open} and close at {close} on {day}.']), { day, open, close }),
      values: [open, close],
    };
  },
  distractor: (rng) => schema(rng.pick(['get_opening_hours', 'opening_hours']), 'Opening hours on a given weekday', { day: { type: 'string', description: 'Weekday, e.g. Monday' } }, ['day']),
};

const orderStatus: ToolFamily = {
  use(rng, split, renamed) {
    const v = renamedVariant(rng.pick([
      { name: 'get_order_status', param: 'order_id', description: 'Status of a customer order' },
      { name: 'order_status', param: 'order_number', description: 'Where an order is and when it arrives' },
      { name: 'track_order', param: 'order_id', description: 'Tracking information for an order' },
    ]), renamed, ORDER_NAMES);
    const id = String(rng.int(10_000, 99_999));
    const status = rng.pick(STATUSES);
    const templates = split === 'train'
      ? ['Where is my order {id}?', 'What is the status of order {id}?', 'Has my order {id} shipped yet?', 'Can you check order {id} for me?']
      : ['Any news about my order number {id}?', 'I am waiting for order {id}. Where is it?'];
    return {
      schema: schema(v.name, v.description, { [v.param]: { type: 'string', description: 'The order number' } }, [v.param]),
      name: v.name,
      args: { [v.param]: id },
      question: fill(rng.pick(templates), { id }),
      result: { [v.param]: id, status },
      answer: fill(rng.pick(['Your order {id} is {status}.', 'Order {id} is {status}.', 'The status of order {id}: {status}.']), { id, status }),
      values: [id, status],
    };
  },
  distractor: (rng) => schema(rng.pick(['get_order_status', 'track_order']), 'Status of a customer order', { order_id: { type: 'string', description: 'The order number' } }, ['order_id']),
};

const stock: ToolFamily = {
  use(rng, split, renamed) {
    const v = renamedVariant(rng.pick([
      { name: 'check_stock', param: 'item', description: 'How many of an item are in stock' },
      { name: 'get_inventory', param: 'product', description: 'Current stock of a product' },
    ]), renamed, STOCK_NAMES);
    const item = rng.pick(ITEMS);
    const count = rng.int(0, 120);
    const templates = split === 'train'
      ? ['Do you have any {item} left?', 'How many {item} do you have?', 'Are there {item} in stock?']
      : ['Are the {item} sold out?', 'I would like some {item}. Do you still have them?'];
    return {
      schema: schema(v.name, v.description, { [v.param]: { type: 'string', description: 'What to look up, e.g. bread' } }, [v.param]),
      name: v.name,
      args: { [v.param]: item },
      question: fill(rng.pick(templates), { item }),
      result: { [v.param]: item, in_stock: count },
      answer: count === 0 ? fill('Sorry, we have no {item} left.', { item }) : fill(rng.pick(['We have {n} {item} in stock.', 'There are {n} {item} left.']), { n: count, item }),
      values: [count === 0 ? 'no' : String(count)],
    };
  },
  distractor: (rng) => schema(rng.pick(['check_stock', 'get_inventory']), 'How many of an item are in stock', { item: { type: 'string', description: 'What to look up, e.g. bread' } }, ['item']),
};

const exchangeRate: ToolFamily = {
  use(rng, split, renamed) {
    let v = rng.pick([
      { name: 'get_exchange_rate', from: 'from', to: 'to' },
      { name: 'convert_currency', from: 'base', to: 'target' },
    ]);
    if (renamed) {
      const r = renamed(RATE_NAMES);
      v = { name: r.name, from: r.params[0]!, to: r.params[1]! };
    }
    const [a, b] = rng.sample(CURRENCIES, 2) as [string, string];
    const rate = (rng.logInt(10, 99_999) / 1000).toFixed(3);
    const templates = split === 'train'
      ? ['What is the exchange rate from {a} to {b}?', 'How many {b} is one {a}?', 'Convert 1 {a} to {b}.']
      : ['What is one {a} worth in {b} today?', 'Tell me the {a} to {b} rate.'];
    return {
      schema: schema(v.name, 'Exchange rate between two currencies', {
        [v.from]: { type: 'string', description: 'Currency code, e.g. EUR' }, [v.to]: { type: 'string', description: 'Currency code, e.g. USD' },
      }, [v.from, v.to]),
      name: v.name,
      args: { [v.from]: a, [v.to]: b },
      question: fill(rng.pick(templates), { a, b }),
      result: { [v.from]: a, [v.to]: b, rate: Number(rate) },
      answer: fill(rng.pick(['1 {a} is {r} {b}.', 'The exchange rate is {r} {b} per {a}.']), { a, b, r: String(Number(rate)) }),
      values: [String(Number(rate))],
    };
  },
  distractor: () => schema('get_exchange_rate', 'Exchange rate between two currencies', { from: { type: 'string', description: 'Currency code, e.g. EUR' }, to: { type: 'string', description: 'Currency code, e.g. USD' } }, ['from', 'to']),
};

const FAMILIES: readonly ToolFamily[] = [openingHours, orderStatus, stock, exchangeRate];
const FAMILY_WEIGHTS = { '0': 4, '1': 2, '2': 2, '3': 2 };

/**
 * A custom-tool question, the tool it needs and 0–2 other host tools, in a random order. With
 * `renameRate` > 0, that share of the needed tools get made-up tool and parameter names (renamer); at 0
 * (the evaluation sets) no extra random draw is made, so the sets stay exactly as they were.
 */
export function customToolUse(rng: Rng, split: Split, renameRate = 0): { use: CustomToolUse; tools: object[] } {
  const i = Number(rng.weighted(FAMILY_WEIGHTS));
  const renamed = renameRate > 0 && rng.chance(renameRate) ? renamer(rng) : undefined;
  const use = FAMILIES[i]!.use(rng, split, renamed);
  const others = rng.sample(FAMILIES.filter((_, j) => j !== i), rng.int(0, 2)).map((f) => f.distractor(rng));
  const at = rng.int(0, others.length);
  return { use, tools: [...others.slice(0, at), use.schema, ...others.slice(at)] };
}

/** Host tools declared for a dialogue whose questions need none of them. */
export function unusedCustomTools(rng: Rng): object[] {
  return rng.sample(FAMILIES, rng.int(1, 2)).map((f) => f.distractor(rng));
}
