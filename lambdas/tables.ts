/**
 * createDynamoStores wants every table name, but each function is given (and granted) only the
 * tables it uses. The others get this name: a store that is never called never sends it, and a
 * call by mistake fails (no such table, no IAM grant) instead of reaching a real table.
 */
export const NOT_GRANTED_TABLE = "not-granted-to-this-function";
