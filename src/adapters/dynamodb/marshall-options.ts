/**
 * How every document client of the service writes items: an undefined field is left out (an
 * optional setting not given), and a map whose own keys include `constructor` (a name an owner
 * or a client chose: an ad network id, a template value, a custom parameter) is still written
 * as a map: the marshaller otherwise takes such an object for a class instance and refuses it.
 */
export const MARSHALL_OPTIONS = {
  removeUndefinedValues: true,
  convertClassInstanceToMap: true,
} as const;
