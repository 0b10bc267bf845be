/** Every item of an index with one partition key value, page by page, parsed on the way out. */
import { type DynamoDBDocumentClient, paginateQuery } from "@aws-sdk/lib-dynamodb";

export const queryIndex = async <T>(
  doc: DynamoDBDocumentClient,
  query: { table: string; index: string; key: string; value: string },
  parse: (item: Record<string, unknown>) => T,
): Promise<T[]> => {
  const found: T[] = [];
  const pages = paginateQuery(
    { client: doc },
    {
      TableName: query.table,
      IndexName: query.index,
      KeyConditionExpression: "#key = :value",
      ExpressionAttributeNames: { "#key": query.key },
      ExpressionAttributeValues: { ":value": query.value },
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) found.push(parse(item));
  }
  return found;
};
