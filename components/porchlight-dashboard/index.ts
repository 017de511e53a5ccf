/** The dashboard's entry: the app element; its screens load on first use. */
import "./porchlight-dashboard.ts";
