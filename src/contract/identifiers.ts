/** The id formats of the wire: notification ids (ULIDs) and notification type names. */

/** A notification id: a ULID (26 Crockford base32 characters, time first). */
export const ULID_PATTERN = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/** A notification type name (`mention.created`): the catalog's, the filters' and the keys' one rule. */
export const TYPE_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
