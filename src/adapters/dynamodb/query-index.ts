/**
 * Every item with one value of an attribute, page by page, parsed on the way out: from an
 * index keyed by it, or by a scan of the table.
 */
import { type DynamoDBDocumentClient, paginateQuery, paginateScan } from "@aws-sdk/lib-dynamodb";

export interface IndexQuery {
  readonly table: string;
  readonly index: string;
  readonly key: string;
  readonly value: string;
  /** The index's sort key, for the items with this value of it only. */
  readonly sort?: { readonly key: string; readonly value: string };
}

/** Every item of every page, parsed. */
const collect = async <T>(
  pages: AsyncIterable<{ Items?: Record<string, unknown>[] }>,
  parse: (item: Record<string, unknown>) => T,
): Promise<T[]> => {
  const found: T[] = [];
  for await (const page of pages) {
    for (const item of page.Items ?? []) found.push(parse(item));
  }
  return found;
};

export const queryIndex = async <T>(
  doc: DynamoDBDocumentClient,
  query: IndexQuery,
  parse: (item: Record<string, unknown>) => T,
): Promise<T[]> => {
  const { sort } = query;
  const pages = paginateQuery(
    { client: doc },
    {
      TableName: query.table,
      IndexName: query.index,
      KeyConditionExpression: sort ? "#key = :value AND #sort = :sort" : "#key = :value",
      ExpressionAttributeNames: { "#key": query.key, ...(sort ? { "#sort": sort.key } : {}) },
      ExpressionAttributeValues: {
        ":value": query.value,
        ...(sort ? { ":sort": sort.value } : {}),
      },
    },
  );
  return collect(pages, parse);
};

/**
 * What `queryIndex` answers for an index without a sort key, read from the table itself: every
 * item is read, and those without the value are left on the server.
 */
export const scanWhere = async <T>(
  doc: DynamoDBDocumentClient,
  query: Pick<IndexQuery, "table" | "key" | "value">,
  parse: (item: Record<string, unknown>) => T,
): Promise<T[]> => {
  const pages = paginateScan(
    { client: doc },
    {
      TableName: query.table,
      FilterExpression: "#key = :value",
      ExpressionAttributeNames: { "#key": query.key },
      ExpressionAttributeValues: { ":value": query.value },
    },
  );
  return collect(pages, parse);
};

/** Every item of a table, parsed: the few small tables listed whole (apps, users). */
export const scanAll = <T>(
  doc: DynamoDBDocumentClient,
  table: string,
  parse: (item: Record<string, unknown>) => T,
): Promise<T[]> => collect(paginateScan({ client: doc }, { TableName: table }), parse);
