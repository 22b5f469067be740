import type { Order, Product } from '../api/wire-types.js';
import type { SyncContext } from './context.js';
import { orderRows, productRows, walletRow } from './rows.js';
import { walk } from './walk.js';

/** Wallets: a balance snapshot of every wallet each run, the selected one marked. */
export async function syncWallets(context: SyncContext): Promise<void> {
  const { store, dp, syncRunId } = context;
  const stats = context.stats.dpWallets;
  const started = context.now();
  context.progress.update('dpWallets', stats);
  // A wallet carries no timestamp: its read is the interval from the request sent to the answer.
  const requestedAtMs = context.now();
  const all = await dp.getWallets();
  const readAtMs = context.now();
  const selected = await dp.getWallets({ selectedOnly: true });
  const selectedIds = new Set(selected.wallets.map((w) => w.walletID));
  await store.batch(async () => {
    for (const wallet of all.wallets)
      await store.lists.wallet(walletRow(wallet), syncRunId, selectedIds.has(wallet.walletID), requestedAtMs, readAtMs);
    for (const rejected of [...all.rejected, ...selected.rejected])
      await store.runs.quarantine('dpWallets', rejected, syncRunId);
  });
  stats.records = all.wallets.length;
  stats.new = all.wallets.length;
  stats.quarantined = all.rejected.length + selected.rejected.length;
  stats.pages = 2;
  stats.durationMs = context.now() - started;
  context.progress.done('dpWallets', stats);
}

export async function syncProducts(context: SyncContext): Promise<void> {
  const { store, dp } = context;
  await walk<Product>(context, {
    resource: 'dpProducts',
    expected: () => context.store.lists.listedCount('dp_products'),
    quarantineAs: 'dpProducts',
    list: (startCursor) => dp.listProducts(startCursor ? { startCursor } : {}),
    write: (product) => store.lists.product(productRows(product)),
    unlisted: { table: 'dp_products', idField: 'productID' },
  });
}

/** Orders change (status, fulfilment): the whole list is read every run. */
export async function syncOrders(context: SyncContext): Promise<void> {
  const { store, dp, syncRunId } = context;
  await walk<Order>(context, {
    resource: 'dpOrders',
    expected: () => context.store.lists.listedCount('dp_orders'),
    quarantineAs: 'dpOrders',
    list: (startCursor) => dp.listOrders(startCursor ? { startCursor } : {}),
    lookUp: (orders) =>
      store.lookUp(
        'dp_orders',
        orders.map((order) => order.orderID),
      ),
    write: (order) => store.lists.order(orderRows(order), syncRunId),
    unlisted: { table: 'dp_orders', idField: 'orderID' },
  });
}
