/** The DNS, as far as the service asks it anything: a name's TXT records. */
export interface TxtRecords {
  /**
   * The TXT records of `name`, each as its strings (a record longer than 255 characters comes
   * in several). None when the name has none or does not exist; throws when the DNS cannot
   * answer now (a timeout, a server failure).
   */
  txt(name: string): Promise<readonly (readonly string[])[]>;
}
