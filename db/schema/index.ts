export * from './users';
export * from './subscriptions';
export * from './money';
export * from './simulator';
export * from './merchants';
export * from './kyc';
export * from './admin';
export * from './issuing';
