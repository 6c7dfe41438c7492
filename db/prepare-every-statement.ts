import type postgres from "postgres";

type Sql = postgres.Sql | postgres.TransactionSql;
type Callback = (sql: postgres.TransactionSql) => unknown;

/**
 * The postgres.js client as drizzle should see it: every statement prepared.
 * Drizzle asks postgres.js for unnamed statements unless a query is given a
 * name, and postgres.js sends an unnamed statement with parameters in two
 * round trips (Parse and Describe first, to learn the parameters' types, then
 * Bind and Execute), parsed and planned again each time. A prepared one is
 * described once per connection and then costs one round trip. The set of
 * statements is the app's own SQL text, so each connection's cache stays
 * small; values are always parameters, never part of the text.
 *
 * Transactions and savepoints hand their callback a client of their own,
 * which is wrapped the same way.
 */
export function prepareEveryStatement<T extends Sql>(sql: T): T {
  return new Proxy(sql, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (property === "unsafe") {
        return (query: string, parameters?: unknown[], options?: Record<string, unknown>) =>
          target.unsafe(query, parameters as never, { ...options, prepare: true });
      }
      if (property === "begin" || property === "savepoint") {
        return (...args: unknown[]) => {
          const callback = args.at(-1) as Callback;
          const wrapped: Callback = (transaction) => callback(prepareEveryStatement(transaction));
          return (value as (...rest: unknown[]) => unknown).apply(target, [...args.slice(0, -1), wrapped]);
        };
      }
      return value;
    },
  });
}
