// The CA as an input of the xDS translation: its current state and a signal
// when a CA entry was applied. In-process from the catalog (the CA has no
// Subscribe topic: its entries carry private keys).
import type { Catalog } from '../catalog/catalog';
import type { ConnectChange, ConnectState } from './types';

export interface ConnectSource {
  state(): ConnectState;
  /** Called after each applied entry that changed the CA, with what it changed ('all' after a restore). Returns an unsubscribe function. */
  onChange(listener: (change: ConnectChange | 'all') => void): () => void;
}

export function catalogConnectSource(catalog: Pick<Catalog, 'connectCa' | 'onApplied' | 'onReset'>): ConnectSource {
  return {
    state: () => catalog.connectCa(),
    onChange(listener) {
      const offApplied = catalog.onApplied((_index, _events, info) => {
        if (info.connect) listener(info.connect);
      });
      const offReset = catalog.onReset(() => listener('all'));
      return () => {
        offApplied();
        offReset();
      };
    },
  };
}
