export { GiftCardClient, type GiftCardListElement, type ListOptions } from './giftcard-client.js';
export { DpClient, type WalletRead } from './dp-client.js';
export { paginate, MAX_PAGE_SIZE, type Page } from './pager.js';
export type { HttpEvent, HttpStats } from './http-client.js';
export * from './wire-types.js';
