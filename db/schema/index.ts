export * from './users';
export * from './subscriptions';
