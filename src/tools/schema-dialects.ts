/**
 * The JSON-schema dialects a tool's schema may use, each with its keywords and its meta-schema:
 * draft-07 (the default; a draft-06 `$schema` is read as draft-07), 2019-09 and 2020-12.
 *
 * Invariants: the meta-schemas are the published ones (./meta-schemas, verbatim), prepared once per
 * dialect and never changed after: their `format`s are dropped (formats are annotations here) and
 * their recursive references (`$recursiveRef: "#"`, `$dynamicRef: "#meta"`) point at the dialect's
 * main meta-schema, which is what they resolve to when that schema is the one validated against.
 */
import { dereference, type Schema, type SchemaDraft } from '@cfworker/json-schema';
import { forEachSchemaObject } from './schema-walk';
import draft07 from './meta-schemas/draft-07.json';
import schema2019 from './meta-schemas/2019-09/schema.json';
import applicator2019 from './meta-schemas/2019-09/meta/applicator.json';
import content2019 from './meta-schemas/2019-09/meta/content.json';
import core2019 from './meta-schemas/2019-09/meta/core.json';
import format2019 from './meta-schemas/2019-09/meta/format.json';
import metaData2019 from './meta-schemas/2019-09/meta/meta-data.json';
import validation2019 from './meta-schemas/2019-09/meta/validation.json';
import schema2020 from './meta-schemas/2020-12/schema.json';
import applicator2020 from './meta-schemas/2020-12/meta/applicator.json';
import content2020 from './meta-schemas/2020-12/meta/content.json';
import core2020 from './meta-schemas/2020-12/meta/core.json';
import formatAnnotation2020 from './meta-schemas/2020-12/meta/format-annotation.json';
import metaData2020 from './meta-schemas/2020-12/meta/meta-data.json';
import unevaluated2020 from './meta-schemas/2020-12/meta/unevaluated.json';
import validation2020 from './meta-schemas/2020-12/meta/validation.json';

export type Lookup = Record<string, Schema | boolean>;

/** A schema with the lookup its `$ref`s resolve in, and the draft @cfworker/json-schema applies it as. */
export interface Resolved {
  schema: Schema;
  lookup: Lookup;
  draft: SchemaDraft;
}

export interface Dialect {
  name: 'draft-07' | '2019-09' | '2020-12';
  /** Every keyword a schema of this dialect may use; any other is a compile error. */
  keywords: ReadonlySet<string>;
  /**
   * How a tool's schema is applied: never as '7', where @cfworker/json-schema ignores `$ref`'s
   * siblings; here they apply in every dialect (draft-07's other keywords mean the same as 2019-09's).
   */
  draft: SchemaDraft;
  /** The main meta-schema, with the others it refers to. */
  meta(): Resolved;
}

const DRAFT_07_KEYWORDS = [
  ...['$schema', '$id', '$ref', '$comment', '$defs', 'definitions', '$vocabulary'],
  ...['title', 'description', 'default', 'examples', 'readOnly', 'writeOnly', 'deprecated', 'format'],
  ...['contentMediaType', 'contentEncoding', 'contentSchema', 'nullable'],
  ...['type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'],
  ...['maxLength', 'minLength', 'pattern', 'items', 'additionalItems', 'maxItems', 'minItems', 'uniqueItems', 'contains'],
  ...['maxProperties', 'minProperties', 'required', 'properties', 'patternProperties', 'additionalProperties'],
  ...['dependencies', 'propertyNames', 'if', 'then', 'else', 'allOf', 'anyOf', 'oneOf', 'not'],
];
const ADDED_IN_2019 = ['$anchor', 'maxContains', 'minContains', 'dependentRequired', 'dependentSchemas', 'unevaluatedItems', 'unevaluatedProperties'];

function cached(build: () => Resolved): () => Resolved {
  let resolved: Resolved | undefined;
  return () => (resolved ??= build());
}

const DIALECTS: Record<Dialect['name'], Dialect> = {
  'draft-07': {
    name: 'draft-07',
    keywords: new Set(DRAFT_07_KEYWORDS),
    draft: '2019-09',
    meta: cached(() => prepareMeta('7', draft07.$id, [draft07])),
  },
  '2019-09': {
    name: '2019-09',
    keywords: new Set([...DRAFT_07_KEYWORDS, ...ADDED_IN_2019, '$recursiveRef', '$recursiveAnchor']),
    draft: '2019-09',
    meta: cached(() =>
      prepareMeta('2019-09', schema2019.$id, [schema2019, applicator2019, content2019, core2019, format2019, metaData2019, validation2019]),
    ),
  },
  '2020-12': {
    name: '2020-12',
    // `items` is one schema here: tuples are `prefixItems`, and there is no `additionalItems`.
    keywords: new Set([...DRAFT_07_KEYWORDS.filter((k) => k !== 'additionalItems'), ...ADDED_IN_2019, 'prefixItems', '$dynamicRef', '$dynamicAnchor']),
    draft: '2020-12',
    meta: cached(() =>
      prepareMeta('2020-12', schema2020.$id, [
        schema2020,
        ...[applicator2020, content2020, core2020, formatAnnotation2020, metaData2020, unevaluated2020, validation2020],
      ]),
    ),
  },
};

/** The dialect `schema.$schema` names (draft-07 when it names none), or undefined for any other. */
export function dialectOf(schema: Record<string, unknown>): Dialect | undefined {
  const uri = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (uri.includes('2020-12')) return DIALECTS['2020-12'];
  if (uri.includes('2019-09')) return DIALECTS['2019-09'];
  return uri === '' || /draft-0[67]/.test(uri) ? DIALECTS['draft-07'] : undefined;
}

function prepareMeta(draft: SchemaDraft, mainId: string, files: readonly object[]): Resolved {
  const lookup: Lookup = Object.create(null) as Lookup;
  const schemas = files.map((file) => {
    const schema = structuredClone(file) as Schema;
    forEachSchemaObject(schema, (node) => {
      delete node.format;
      if (node.$recursiveRef === '#' || node.$dynamicRef === '#meta') {
        delete node.$recursiveRef;
        delete node.$dynamicRef;
        node.$ref = mainId;
      }
    });
    dereference(schema, lookup);
    return schema;
  });
  return { schema: schemas[0]!, lookup, draft };
}
