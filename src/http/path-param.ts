/** A path parameter, checked by its schema: a bad one is a 422 naming it. */
import type { APIGatewayProxyEvent } from "aws-lambda";
import type * as z from "zod";
import { checked } from "../validation/issues.ts";

export const pathParam = (
  event: Pick<APIGatewayProxyEvent, "pathParameters">,
  name: string,
  schema: z.ZodType<string>,
): string => checked(schema, event.pathParameters?.[name], name);
