/** A user of a tenant: who an inbox, a mark, a connection or a preference belongs to. */
export interface UserRef {
  tenantId: string;
  userId: string;
}
