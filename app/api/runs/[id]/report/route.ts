import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { GET } from "../route";

export { GET };

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
