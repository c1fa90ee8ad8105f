/**
 * The small part of chrome-remote-interface 0.34 that src/node/cdpTransport.ts uses (the package has
 * no types of its own and @types/chrome-remote-interface is not installed). Every answer is `unknown`:
 * cdpTransport.ts narrows what it reads.
 */
declare module 'chrome-remote-interface' {
  namespace CDP {
    interface HttpOptions {
      host?: string;
      port?: number;
      secure?: boolean;
      useHostName?: boolean;
    }
    interface ConnectOptions extends HttpOptions {
      /** A target id, a `ws://` debugger URL, or a target object. */
      target?: string;
      /** Use the protocol descriptor bundled with the package instead of fetching /json/protocol. */
      local?: boolean;
    }
    type EventListener = (params: unknown, sessionId?: string) => void;
    interface Client {
      send(method: string, params?: Record<string, unknown>): Promise<unknown>;
      on(event: string, listener: EventListener): unknown;
      removeListener(event: string, listener: EventListener): unknown;
      close(): Promise<void>;
    }
  }
  interface CDPModule {
    (options?: CDP.ConnectOptions): Promise<CDP.Client>;
    Version(options?: CDP.HttpOptions): Promise<unknown>;
    List(options?: CDP.HttpOptions): Promise<unknown>;
    New(options?: CDP.HttpOptions & { url?: string }): Promise<unknown>;
    Activate(options: CDP.HttpOptions & { id: string }): Promise<void>;
    Close(options: CDP.HttpOptions & { id: string }): Promise<void>;
  }
  const CDP: CDPModule;
  export = CDP;
}
