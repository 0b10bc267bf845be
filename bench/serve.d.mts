import type { Server } from "node:http";

export declare const serve: (server: Server) => void;
