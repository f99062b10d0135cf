/**
 * Inbox table: an author's recent inbox-mode posts, one item per post (`T#<tenant>#P#<author>` /
 * an arrival-ordered id), with the inbox TTL. A follow reads the posts that arrived at or after it and
 * copies the ones the post's follower listing missed into the new follower's inbox.
 */
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LoggedPost, RecentPostsLog } from '../../core/ports/fan-out.js';
import { recentPostsRecipient } from '../../core/model/recipient-ids.js';
import { idLowerBoundAt, notificationId } from '../../core/model/ids.js';
import { keys } from '../../core/model/keys.js';
import { queryPages } from './query-pages.js';

export class DynamoRecentPostsLog implements RecentPostsLog {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** recordPost: one PutItem; the sort key is derived from (type, event, arrival), so a retry overwrites. */
  async recordPost(tenantId: string, authorId: string, post: LoggedPost): Promise<void> {
    const sk = notificationId({ tenantId, type: post.type, eventId: post.eventId, recipient: recentPostsRecipient(authorId), timeMs: post.arrivalMs });
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: { pk: keys.recentPostsPartition(tenantId, authorId), sk, ...post } }));
  }

  /** listPostsFrom: one Query (paged) of the author's log from `fromMs` on, oldest first, expired items left out. */
  async listPostsFrom(tenantId: string, authorId: string, fromMs: number, nowMs: number): Promise<LoggedPost[]> {
    const posts: LoggedPost[] = [];
    const pages = queryPages(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND sk >= :from',
      ExpressionAttributeValues: { ':pk': keys.recentPostsPartition(tenantId, authorId), ':from': idLowerBoundAt(fromMs) },
    });
    for await (const page of pages) {
      for (const item of page) {
        const post = item as unknown as LoggedPost;
        if (post.expiresAt * 1000 <= nowMs) continue;
        posts.push({ eventId: post.eventId, type: post.type, priority: post.priority, arrivalMs: post.arrivalMs, notification: post.notification, expiresAt: post.expiresAt });
      }
    }
    return posts;
  }
}
