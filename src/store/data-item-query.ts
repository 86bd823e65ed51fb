// The SQL of data-service queries: a validated query tree (src/nosql/data-query.ts parses and checks it) → a
// WHERE fragment and ORDER BY over the `data` column of the data items. Field names and values are bind
// parameters. See data-query.ts for what a rule matches.
export type FieldType = 'string' | 'number';
export interface IndexedField {
  name: string;
  type: FieldType;
}

export const OPERATORS = ['EQ', 'NE', 'LT', 'GT', 'LE', 'GE', 'IN', 'STARTSWITH'] as const;
export type Operator = (typeof OPERATORS)[number];
export const CONDITIONS = ['AND', 'OR', 'NOT'] as const;

type Scalar = string | number;
export type QueryNode =
  | { kind: 'and' | 'or'; children: QueryNode[] }
  | { kind: 'not'; child: QueryNode }
  | { kind: 'rule'; field: IndexedField; op: Operator; value: Scalar | Scalar[] };

export interface DataQuery {
  where: QueryNode | undefined;
  sort: { field: IndexedField; asc: boolean } | undefined;
  offset: number;
  limit: number;
}

const COMPARE: Record<Exclude<Operator, 'IN' | 'STARTSWITH'>, string> = {
  EQ: '=',
  NE: '<>',
  LT: '<',
  GT: '>',
  LE: '<=',
  GE: '>=',
};

function bind(params: unknown[], value: unknown): string {
  params.push(value);
  return `$${params.length}`;
}

/** The field's value as SQL of its declared type; `name` is a placeholder already bound. */
function fieldSql(field: IndexedField, name: string): string {
  return field.type === 'number'
    ? `(data -> ${name}::text)::numeric`
    : `(data ->> ${name}::text) COLLATE "C"`;
}

function typeCheckSql(field: IndexedField, name: string): string {
  return `jsonb_typeof(data -> ${name}::text) = '${field.type}'`;
}

export function compileRule(node: Extract<QueryNode, { kind: 'rule' }>, params: unknown[]): string {
  const name = bind(params, node.field.name);
  const value = fieldSql(node.field, name);
  const cast = node.field.type === 'number' ? 'numeric' : 'text';
  let test: string;
  if (node.op === 'IN') test = `${value} = ANY(${bind(params, node.value)}::${cast}[])`;
  else if (node.op === 'STARTSWITH')
    test = `starts_with(data ->> ${name}::text, ${bind(params, node.value)}::text)`;
  else test = `${value} ${COMPARE[node.op]} ${bind(params, node.value)}::${cast}`;
  // CASE, not AND: PostgreSQL may evaluate AND's sides in any order, and a cast of the wrong JSON type throws.
  return `(CASE WHEN ${typeCheckSql(node.field, name)} THEN ${test} ELSE false END)`;
}

/** The WHERE fragment of a query tree; every rule compiles in its own function above. */
export function compileWhere(node: QueryNode, params: unknown[]): string {
  switch (node.kind) {
    case 'rule':
      return compileRule(node, params);
    case 'not':
      // A rule is false (never NULL) for items without the field, so NOT of it is true for them.
      return `(NOT COALESCE(${compileWhere(node.child, params)}, false))`;
    default:
      return `(${node.children.map((c) => compileWhere(c, params)).join(node.kind === 'and' ? ' AND ' : ' OR ')})`;
  }
}

/** ORDER BY: the sort field (items without a value of its type last, either way), then the item id. */
export function compileOrder(sort: DataQuery['sort'], params: unknown[]): string {
  if (!sort) return 'item_id';
  const name = bind(params, sort.field.name);
  const key = `CASE WHEN ${typeCheckSql(sort.field, name)} THEN ${fieldSql(sort.field, name)} END`;
  return `${key} ${sort.asc ? 'ASC' : 'DESC'} NULLS LAST, item_id`;
}
