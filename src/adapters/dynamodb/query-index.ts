/** Every item of an index with one key value, page by page, parsed on the way out. */
import { type DynamoDBDocumentClient, paginateQuery } from "@aws-sdk/lib-dynamodb";

export interface IndexQuery {
  readonly table: string;
  readonly index: string;
  readonly key: string;
  readonly value: string;
  /** The index's sort key, for the items with this value of it only. */
  readonly sort?: { readonly key: string; readonly value: string };
}

export const queryIndex = async <T>(
  doc: DynamoDBDocumentClient,
  query: IndexQuery,
  parse: (item: Record<string, unknown>) => T,
): Promise<T[]> => {
  const found: T[] = [];
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
  for await (const page of pages) {
    for (const item of page.Items ?? []) found.push(parse(item));
  }
  return found;
};
