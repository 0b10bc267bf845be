/** A path parameter, checked by its schema: a bad one is a 422 naming it. */
import type { APIGatewayProxyEvent } from "aws-lambda";
import type * as z from "zod";
import { ValidationError } from "../domain/errors.ts";
import { formatIssues } from "../validation/issues.ts";

export const pathParam = (
  event: Pick<APIGatewayProxyEvent, "pathParameters">,
  name: string,
  schema: z.ZodType<string>,
): string => {
  const parsed = schema.safeParse(event.pathParameters?.[name]);
  if (!parsed.success) throw new ValidationError(formatIssues(parsed.error.issues, name));
  return parsed.data;
};
