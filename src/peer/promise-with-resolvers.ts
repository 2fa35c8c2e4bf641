/**
 * `Promise.withResolvers` for Node 20, which libp2p calls and which Node
 * has only from 22 on. Imported before libp2p by peer-node.ts, and only
 * there: nothing else of Parley relies on it.
 */
interface WithResolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

const promises = Promise as unknown as { withResolvers?: <T>() => WithResolvers<T> };

if (typeof promises.withResolvers !== 'function') {
  promises.withResolvers = function withResolvers<T>(): WithResolvers<T> {
    let resolve!: WithResolvers<T>['resolve'];
    let reject!: WithResolvers<T>['reject'];
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

export {};
