/** Ports of the preferences store (Graph table on AWS and locally). */
import type { Preferences, PreferencesLookup } from './preferences.js';

export interface PreferencesReader {
  /** Preferences of many users of one tenant (fan-out checks mutes per recipient). */
  getPreferences(tenantId: string, userIds: readonly string[]): Promise<Map<string, PreferencesLookup>>;
}

export interface PreferencesStore extends PreferencesReader {
  putPreferences(tenantId: string, userId: string, preferences: Preferences): Promise<void>;
}
