export * from './policy';
export * from './auth';
export * from './svc';
export * from './fleet';
