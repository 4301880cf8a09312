// The test wallet: an EIP-1193 provider announced through EIP-6963, injected into every page
// of a browser context before the page's own scripts run. Each request goes to the test
// (window.__testWalletRpc), which answers the accounts itself and forwards everything else —
// personal_sign, eth_signTypedData_v4, eth_sendTransaction, reads — to Anvil, which signs for
// its own dev accounts. The page talks to it exactly as to a browser wallet.
(() => {
  const info = Object.freeze({
    uuid: "5d1b2b8e-7c1f-4a39-9a57-6f0e1c2d3b4a",
    name: "Test Wallet",
    icon: "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='8' height='8'/%3E",
    rdns: "dev.metaledger.testwallet",
  });
  const listeners = new Map();
  const provider = Object.freeze({
    async request({ method, params }) {
      const out = await window.__testWalletRpc(method, params ?? []);
      if (out.error) {
        const error = new Error(out.error.message);
        error.code = out.error.code;
        error.data = out.error.data;
        throw error;
      }
      return out.result;
    },
    on(event, fn) {
      listeners.set(event, [...(listeners.get(event) ?? []), fn]);
    },
    removeListener(event, fn) {
      listeners.set(event, (listeners.get(event) ?? []).filter((f) => f !== fn));
    },
  });
  const announce = () =>
    window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info, provider }) }));
  window.addEventListener("eip6963:requestProvider", announce);
  announce();
})();
