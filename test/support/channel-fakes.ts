/** A channel state store that answers `state` (per user) and ignores every write (the channel consumer's unit tests). */
import type { ChannelState, ChannelStateStore } from '../../src/core/channels/ports.js';
import type { UserRef } from '../../src/core/model/user.js';

export function fixedChannelState(state: (user: UserRef) => ChannelState): ChannelStateStore {
  return {
    channelState: async (user) => state(user),
    listDevices: async () => [],
    putDevice: async () => true,
    deleteDevice: async () => undefined,
    putPushConsent: async () => undefined,
    deletePushConsent: async () => undefined,
    putEmailAddress: async () => undefined,
    deleteEmailAddress: async () => undefined,
    unsubscribeEmail: async () => undefined,
  };
}
