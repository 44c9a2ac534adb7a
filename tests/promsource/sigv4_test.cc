// SigV4 signing against AWS's published Signature Version 4 test suite ("aws-sig-v4-test-suite",
// in the layout awslabs/aws-c-auth distributes it: tests/aws-signing-test-suite/v4/<case>/ with
// request.txt, header-canonical-request.txt, header-string-to-sign.txt, header-signature.txt).
// Every case uses access key AKIDEXAMPLE, secret wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY, region
// us-east-1, service "service" and the time 2015-08-30T12:36:00Z. The expected values below are
// the suite's, typed in case by case.
#include "promsource/sigv4.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpucost::promsource {
namespace {

const Instant kSuiteTime = InstantFromUnixMs(1440938160000);  // 2015-08-30T12:36:00Z
const AwsCredentials kSuiteCredentials{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                       ""};
constexpr char kEmptyHash[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

struct SuiteCase {
  std::string name;
  std::string method;
  std::string target;  // path and query as on the request line
  std::vector<std::pair<std::string, std::string>> headers;  // besides Host
  std::string body;
  bool sign_body = false;
  std::string session_token;
  std::string canonical_request;  // "" where only the signature is checked
  std::string string_to_sign;
  std::string signature;
};

std::string Authorization(const std::string& signed_headers, const std::string& signature) {
  return "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
         "SignedHeaders=" +
         signed_headers + ", Signature=" + signature;
}

std::vector<SuiteCase> Cases() {
  const std::string scope = "20150830T123600Z\n20150830/us-east-1/service/aws4_request\n";
  return {
      {"get-vanilla", "GET", "/", {}, "", false, "",
       std::string("GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
                   "host;x-amz-date\n") + kEmptyHash,
       "AWS4-HMAC-SHA256\n" + scope +
           "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
       "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
      {"get-vanilla-query-order-key-case", "GET", "/?Param2=value2&Param1=value1", {}, "", false,
       "",
       std::string("GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\n"
                   "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n") + kEmptyHash,
       "AWS4-HMAC-SHA256\n" + scope +
           "816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0",
       "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"},
      {"get-vanilla-empty-query-key", "GET", "/?Param1=value1", {}, "", false, "", "",
       "AWS4-HMAC-SHA256\n" + scope +
           "1e24db194ed7d0eec2de28d7369675a243488e08526e8c1c73571282f7c517ab",
       "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"},
      {"get-vanilla-query-unreserved", "GET",
       "/?-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz="
       "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
       {}, "", false, "", "",
       "AWS4-HMAC-SHA256\n" + scope +
           "c30d4703d9f799439be92736156d47ccfb2d879ddf56f5befa6d1d6aab979177",
       "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"},
      {"get-vanilla-utf8-query", "GET", "/?\xe1\x88\xb4=bar", {}, "", false, "",
       std::string("GET\n/\n%E1%88%B4=bar\nhost:example.amazonaws.com\n"
                   "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n") + kEmptyHash,
       "AWS4-HMAC-SHA256\n" + scope +
           "eb30c5bed55734080471a834cc727ae56beb50e5f39d1bff6d0d38cb192a7073",
       "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"},
      {"get-utf8", "GET", "/\xe1\x88\xb4", {}, "", false, "",
       std::string("GET\n/%E1%88%B4\n\nhost:example.amazonaws.com\n"
                   "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n") + kEmptyHash,
       "AWS4-HMAC-SHA256\n" + scope +
           "2a0a97d02205e45ce2e994789806b19270cfbbb0921b278ccf58f5249ac42102",
       "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"},
      {"get-space-normalized", "GET", "/example space/", {}, "", false, "",
       std::string("GET\n/example%20space/\n\nhost:example.amazonaws.com\n"
                   "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n") + kEmptyHash,
       "AWS4-HMAC-SHA256\n" + scope +
           "63ee75631ed7234ae61b5f736dfc7754cdccfedbff4b5128a915706ee9390d86",
       "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"},
      {"get-header-value-trim", "GET", "/",
       {{"My-Header1", " value1"}, {"My-Header2", " \"a   b   c\""}}, "", false, "",
       std::string("GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\n"
                   "my-header2:\"a b c\"\nx-amz-date:20150830T123600Z\n\n"
                   "host;my-header1;my-header2;x-amz-date\n") + kEmptyHash,
       "AWS4-HMAC-SHA256\n" + scope +
           "a726db9b0df21c14f559d0a978e563112acb1b9e05476f0a6a1c7d68f28605c7",
       "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"},
      {"get-vanilla-with-session-token", "GET", "/", {}, "", false,
       "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267",
       std::string("GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n"
                   "x-amz-security-token:"
                   "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267\n\n"
                   "host;x-amz-date;x-amz-security-token\n") + kEmptyHash,
       "AWS4-HMAC-SHA256\n" + scope +
           "067b36aa60031588cea4a4cde1f21215227a047690c72247f1d70b32fbbfad2b",
       "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8"},
      {"post-vanilla", "POST", "/", {}, "", false, "",
       std::string("POST\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
                   "host;x-amz-date\n") + kEmptyHash,
       "AWS4-HMAC-SHA256\n" + scope +
           "553f88c9e4d10fc9e109e2aeb65f030801b70c2f6468faca261d401ae622fc87",
       "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"},
      {"post-x-www-form-urlencoded", "POST", "/",
       {{"Content-Type", "application/x-www-form-urlencoded"}, {"Content-Length", "13"}},
       "Param1=value1", true, "",
       "POST\n/\n\ncontent-length:13\ncontent-type:application/x-www-form-urlencoded\n"
       "host:example.amazonaws.com\n"
       "x-amz-content-sha256:9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e\n"
       "x-amz-date:20150830T123600Z\n\n"
       "content-length;content-type;host;x-amz-content-sha256;x-amz-date\n"
       "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
       "AWS4-HMAC-SHA256\n" + scope +
           "b1edd1d03544c25390e32085d55b57acc9a3961bb59415ff86c45c3d89d16cfb",
       "d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b"},
  };
}

// The suite's headers of each case, lowercased names in order, for the Authorization check.
std::string SignedHeadersOf(const SigV4Signature& sig) {
  const std::string& cr = sig.canonical_request;
  const size_t last = cr.rfind('\n');
  const size_t before = cr.rfind('\n', last - 1);
  return cr.substr(before + 1, last - before - 1);
}

TEST(SigV4, AwsTestSuiteCases) {
  for (const SuiteCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    HttpRequest r;
    r.method = c.method;
    r.url = "https://example.amazonaws.com" + c.target;
    r.headers = c.headers;
    r.body = c.body;
    SigV4Params params;
    params.region = "us-east-1";
    params.service = "service";
    params.content_sha256_header = c.sign_body;
    AwsCredentials creds = kSuiteCredentials;
    creds.session_token = c.session_token;
    auto sig = SignSigV4(r, creds, params, kSuiteTime);
    ASSERT_TRUE(sig.ok()) << sig.status().ToString();
    if (!c.canonical_request.empty()) {
      EXPECT_EQ(sig->canonical_request, c.canonical_request);
    }
    EXPECT_EQ(sig->string_to_sign, c.string_to_sign);
    EXPECT_EQ(sig->signature, c.signature);
    EXPECT_EQ(sig->authorization, Authorization(SignedHeadersOf(*sig), c.signature));
    // The request now carries what the suite's signed request shows.
    const std::string* auth = FindHeader(r, "Authorization");
    ASSERT_NE(auth, nullptr);
    EXPECT_EQ(*auth, sig->authorization);
    EXPECT_EQ(*FindHeader(r, "X-Amz-Date"), "20150830T123600Z");
    if (!c.session_token.empty()) {
      EXPECT_EQ(*FindHeader(r, "X-Amz-Security-Token"), c.session_token);
    }
  }
}

TEST(SigV4, ResigningReplacesTheOldSignature) {
  HttpRequest r;
  r.url = "https://example.amazonaws.com/";
  SigV4Params params{"us-east-1", "service", false};
  ASSERT_TRUE(SignSigV4(r, kSuiteCredentials, params, kSuiteTime - std::chrono::hours(1)).ok());
  auto sig = SignSigV4(r, kSuiteCredentials, params, kSuiteTime);
  ASSERT_TRUE(sig.ok());
  EXPECT_EQ(sig->signature, "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  EXPECT_EQ(r.headers.size(), 2u);  // one X-Amz-Date, one Authorization
}

TEST(SigV4, AmpStyleRequestSignsHostWithPortAndBody) {
  // Amazon Managed Prometheus: service aps, a POST with a body, a non-default port kept in
  // Host, the default one dropped (as curl sends it).
  HttpRequest r;
  r.method = "POST";
  r.url = "https://aps-workspaces.us-west-2.amazonaws.com:443/workspaces/ws-1/api/v1/read";
  r.headers = {{"Content-Type", "application/x-protobuf"}, {"User-Agent", "gpucost"}};
  r.body = "abc";
  SigV4Params params;
  params.region = "us-west-2";
  auto sig = SignSigV4(r, kSuiteCredentials, params, kSuiteTime);
  ASSERT_TRUE(sig.ok());
  EXPECT_NE(sig->canonical_request.find("host:aps-workspaces.us-west-2.amazonaws.com\n"),
            std::string::npos)
      << sig->canonical_request;
  EXPECT_NE(sig->canonical_request.find("\n/workspaces/ws-1/api/v1/read\n"), std::string::npos);
  EXPECT_EQ(sig->canonical_request.find("user-agent"), std::string::npos);
  EXPECT_TRUE(sig->canonical_request.ends_with(Sha256Hex("abc")));
  EXPECT_NE(sig->authorization.find("/20150830/us-west-2/aps/aws4_request, "
                                    "SignedHeaders=content-type;host;x-amz-date, "),
            std::string::npos)
      << sig->authorization;

  HttpRequest p;
  p.url = "http://127.0.0.1:9090/api/v1/query?query=up%5B5m%5D&time=1";
  auto s2 = SignSigV4(p, kSuiteCredentials, params, kSuiteTime);
  ASSERT_TRUE(s2.ok());
  EXPECT_NE(s2->canonical_request.find("\nquery=up%5B5m%5D&time=1\nhost:127.0.0.1:9090\n"),
            std::string::npos)
      << s2->canonical_request;
}

TEST(SigV4, MissingPiecesAreErrors) {
  HttpRequest r;
  r.url = "https://example.amazonaws.com/";
  EXPECT_FALSE(SignSigV4(r, {}, {"us-east-1", "aps", false}, kSuiteTime).ok());
  EXPECT_FALSE(SignSigV4(r, kSuiteCredentials, {"", "aps", false}, kSuiteTime).ok());
  r.url = "not a url";
  EXPECT_FALSE(SignSigV4(r, kSuiteCredentials, {"us-east-1", "aps", false}, kSuiteTime).ok());
}

}  // namespace
}  // namespace gpucost::promsource
