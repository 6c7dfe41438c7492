export { GET } from "../route";
