#!/usr/bin/env python3
"""Writes the CUR fixtures of tests/billing: legacy_cur.csv (legacy CUR column names) and
cur2.csv / cur2.csv.gz (CUR 2.0 names; the .gz has a byte-order mark and CRLF line ends).
README.md in this folder explains every row and the amounts the tests expect."""
import gzip
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# (legacy name, CUR 2.0 name); None where that schema has no such column.
COLUMNS = [
    ("identity/LineItemId", "identity_line_item_id"),
    ("identity/TimeInterval", "identity_time_interval"),
    ("bill/InvoiceId", "bill_invoice_id"),
    ("bill/BillingEntity", "bill_billing_entity"),
    ("bill/BillType", "bill_bill_type"),
    ("bill/PayerAccountId", "bill_payer_account_id"),
    ("bill/BillingPeriodStartDate", "bill_billing_period_start_date"),
    ("bill/BillingPeriodEndDate", "bill_billing_period_end_date"),
    ("lineItem/UsageAccountId", "line_item_usage_account_id"),
    ("lineItem/LineItemType", "line_item_line_item_type"),
    ("lineItem/UsageStartDate", "line_item_usage_start_date"),
    ("lineItem/UsageEndDate", "line_item_usage_end_date"),
    ("lineItem/ProductCode", "line_item_product_code"),
    ("lineItem/UsageType", "line_item_usage_type"),
    ("lineItem/Operation", "line_item_operation"),
    ("lineItem/AvailabilityZone", "line_item_availability_zone"),
    ("lineItem/ResourceId", "line_item_resource_id"),
    ("lineItem/UsageAmount", "line_item_usage_amount"),
    ("lineItem/CurrencyCode", "line_item_currency_code"),
    ("lineItem/UnblendedRate", "line_item_unblended_rate"),
    ("lineItem/UnblendedCost", "line_item_unblended_cost"),
    (None, "line_item_net_unblended_cost"),
    ("lineItem/LineItemDescription", "line_item_line_item_description"),
    ("lineItem/LegalEntity", "line_item_legal_entity"),
    ("product/ProductName", "product_product_name"),
    ("product/instanceType", "product_instance_type"),
    ("product/region", None),
    (None, "product_region_code"),
    ("pricing/publicOnDemandRate", "pricing_public_on_demand_rate"),
    ("pricing/publicOnDemandCost", "pricing_public_on_demand_cost"),
    ("pricing/term", "pricing_term"),
    ("pricing/unit", "pricing_unit"),
    ("reservation/ReservationARN", "reservation_reservation_a_r_n"),
    ("reservation/AmortizedUpfrontFeeForBillingPeriod", "reservation_amortized_upfront_fee_for_billing_period"),
    ("reservation/EffectiveCost", "reservation_effective_cost"),
    (None, "reservation_net_effective_cost"),
    ("reservation/UnusedAmortizedUpfrontFeeForBillingPeriod", "reservation_unused_amortized_upfront_fee_for_billing_period"),
    (None, "reservation_net_unused_amortized_upfront_fee_for_billing_period"),
    ("reservation/UnusedRecurringFee", "reservation_unused_recurring_fee"),
    (None, "reservation_net_unused_recurring_fee"),
    ("savingsPlan/SavingsPlanARN", "savings_plan_savings_plan_a_r_n"),
    ("savingsPlan/SavingsPlanEffectiveCost", "savings_plan_savings_plan_effective_cost"),
    (None, "savings_plan_net_savings_plan_effective_cost"),
    ("savingsPlan/TotalCommitmentToDate", "savings_plan_total_commitment_to_date"),
    ("savingsPlan/UsedCommitment", "savings_plan_used_commitment"),
    ("savingsPlan/AmortizedUpfrontCommitmentForBillingPeriod", "savings_plan_amortized_upfront_commitment_for_billing_period"),
    (None, "savings_plan_net_amortized_upfront_commitment_for_billing_period"),
    ("savingsPlan/RecurringCommitmentForBillingPeriod", "savings_plan_recurring_commitment_for_billing_period"),
    (None, "savings_plan_net_recurring_commitment_for_billing_period"),
    ("splitLineItem/ParentResourceId", "split_line_item_parent_resource_id"),
    ("splitLineItem/SplitUsage", "split_line_item_split_usage"),
    ("splitLineItem/SplitCost", "split_line_item_split_cost"),
    ("splitLineItem/UnusedCost", "split_line_item_unused_cost"),
    ("resourceTags/user:team", None),
    (None, "resource_tags"),
]

# Short keys used below -> column index.
KEY = {
    "id": 0, "type": 9, "start": 10, "end": 11, "product": 12, "usage_type": 13, "operation": 14,
    "az": 15, "resource": 16, "amount": 17, "rate": 19, "unblended": 20, "net_unblended": 21,
    "description": 22, "instance_type": 25, "region": 26, "od_rate": 28, "od_cost": 29,
    "term": 30, "unit": 31, "ri_arn": 32, "ri_amortized_upfront": 33, "ri_effective": 34,
    "ri_net_effective": 35, "ri_unused_upfront": 36, "ri_net_unused_upfront": 37,
    "ri_unused_recurring": 38, "ri_net_unused_recurring": 39, "sp_arn": 40, "sp_effective": 41,
    "sp_net_effective": 42, "sp_total": 43, "sp_used": 44, "sp_upfront": 45, "sp_net_upfront": 46,
    "sp_recurring": 47, "sp_net_recurring": 48, "split_parent": 49, "split_usage": 50,
    "split_cost": 51, "split_unused": 52, "team": 53,
}

ACCOUNT = "111122223333"
RI_ARN = "arn:aws:ec2:us-east-1:111122223333:reserved-instances/5c7a1e2b-9d3f-4a61-b8e0-2f4c6d8a0b11"
SP_ARN = "arn:aws:savingsplans::111122223333:savingsplan/0e6c2b1a-7f4d-4c93-a2b8-91d35e7f4c20"
P5_A, P5_B = "i-0a1b2c3d4e5f60718", "i-0f9e8d7c6b5a40321"
P4D = "i-0123456789abcdef0"
G5_12 = "i-0fedcba9876543210"
G5_SPOT = "i-05a5b5c5d5e5f5a5b"
POD = ("arn:aws:eks:us-east-1:111122223333:pod/gpu-train/ml-research/"
       "trainer-7d9f-0/5f0c1a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b")

HOURS = ["00", "01", "02"]


def t(day, hour, legacy):
    if legacy:
        return f"{day}T{hour}:00:00Z"
    return f"{day}T{hour}:00:00.000Z"


def rows(day, legacy):
    nxt = {"00": "01", "01": "02", "02": "03"}
    out = []

    def add(hour, **kv):
        kv.setdefault("start", t(day, hour, legacy))
        kv.setdefault("end", t(day, nxt[hour], legacy) if hour in nxt else t(day, "03", legacy))
        out.append(kv)

    net = (lambda v: "" if v == "" else f"{float(v) * 0.95:.10f}") if not legacy else (lambda v: "")
    for h in HOURS:
        # p5.48xlarge on demand, whole hours.
        add(h, type="Usage", product="AmazonEC2", usage_type="BoxUsage:p5.48xlarge",
            operation="RunInstances", az="us-east-1a", resource=P5_A, amount="1.0000000000",
            rate="55.0400000000", unblended="55.0400000000", net_unblended=net("55.04"),
            description="$55.04 per On Demand Linux p5.48xlarge Instance Hour",
            instance_type="p5.48xlarge", region="us-east-1", od_rate="55.0400000000",
            od_cost="55.0400000000", term="OnDemand", unit="Hrs", team="research, vision")
        # p4d.24xlarge covered by a reserved instance.
        add(h, type="DiscountedUsage", product="AmazonEC2", usage_type="BoxUsage:p4d.24xlarge",
            operation="RunInstances", az="us-east-1b", resource=P4D, amount="1.0000000000",
            rate="0.0000000000", unblended="0.0000000000", net_unblended=net("0"),
            description="p4d.24xlarge reserved instance applied",
            instance_type="p4d.24xlarge", region="us-east-1", od_rate="21.9576420000",
            od_cost="21.9576420000", term="Reserved", unit="Hrs", ri_arn=RI_ARN,
            ri_effective="13.1700000000", ri_net_effective=net("13.17"), team="training")
        # g5.12xlarge in us-east-2 covered by a Compute Savings Plan.
        add(h, type="SavingsPlanCoveredUsage", product="AmazonEC2",
            usage_type="USE2-BoxUsage:g5.12xlarge", operation="RunInstances", az="us-east-2a",
            resource=G5_12, amount="1.0000000000", rate="5.6720000000",
            unblended="5.6720000000", net_unblended=net("5.672"),
            description="1.0 hour of g5.12xlarge covered by Savings Plan",
            instance_type="g5.12xlarge", region="us-east-2", od_rate="5.6720000000",
            od_cost="5.6720000000", term="OnDemand", unit="Hrs", sp_arn=SP_ARN,
            sp_effective="3.9700000000", sp_net_effective=net("3.97"), team="inference")
        # Its negation: blank resource id in the legacy file, the instance's id in CUR 2.0.
        add(h, type="SavingsPlanNegation", product="AmazonEC2",
            usage_type="USE2-BoxUsage:g5.12xlarge", operation="RunInstances", az="us-east-2a",
            resource="" if legacy else G5_12, amount="1.0000000000", rate="-5.6720000000",
            unblended="-5.6720000000", net_unblended=net("-5.672"),
            description="SavingsPlanNegation used by AccountId : 111122223333 and UsageSku : ABC",
            instance_type="g5.12xlarge", region="us-east-2", term="OnDemand", unit="Hrs",
            sp_arn=SP_ARN)
        # Hourly Savings Plan commitment: $4.00/h, $3.97 used.
        add(h, type="SavingsPlanRecurringFee", product="ComputeSavingsPlans",
            usage_type="ComputeSP:1yrNoUpfront", operation="", amount="1.0000000000",
            rate="4.0000000000", unblended="4.0000000000", net_unblended=net("4.00"),
            description="1 year No Upfront Compute Savings Plan", sp_arn=SP_ARN,
            sp_total="4.0000000000", sp_used="3.9700000000", sp_upfront="0.0000000000",
            sp_net_upfront=net("0") if not legacy else "", sp_recurring="4.0000000000",
            sp_net_recurring=net("4.00"))
        # g5.xlarge spot; the spot price moves in the third hour.
        spot = "0.4118000000" if h == "02" else "0.4023000000"
        add(h, type="Usage", product="AmazonEC2", usage_type="SpotUsage:g5.xlarge",
            operation="RunInstances:SV001", az="us-east-1c", resource=G5_SPOT,
            amount="1.0000000000", rate=spot, unblended=spot, net_unblended=net(spot),
            description=f"${float(spot):.4f} per Linux/UNIX Spot Instance-hour",
            instance_type="g5.xlarge", region="us-east-1", od_rate="1.0060000000",
            od_cost="1.0060000000", term="OnDemand", unit="Hrs", team="batch")
        # Regional data transfer of the g5.12xlarge: tied to the instance id, not instance hours.
        add(h, type="Usage", product="AWSDataTransfer", usage_type="USE2-DataTransfer-Regional-Bytes",
            operation="InterZone-In", az="us-east-2a", resource=G5_12, amount="12.5000000000",
            rate="0.0100000000", unblended="0.1250000000", net_unblended=net("0.125"),
            description="$0.010 per GB - regional data transfer - in/out/between EC2 AZs",
            region="us-east-2", od_rate="0.0100000000", od_cost="0.1250000000",
            term="OnDemand", unit="GB")
        # EBS gp3 volume of the p5 (monthly GB-Mo prorated per hour).
        add(h, type="Usage", product="AmazonEC2", usage_type="EBS:VolumeUsage.gp3",
            operation="CreateVolume-Gp3", az="us-east-1a", resource="vol-0c1d2e3f4a5b6c7d8",
            amount="2.6881720430", rate="0.0800000000", unblended="0.2150537634",
            net_unblended=net("0.2150537634"),
            description="$0.08 per GB-month of General Purpose (gp3) provisioned storage",
            region="us-east-1", od_rate="0.0800000000", od_cost="0.2150537634",
            term="OnDemand", unit="GB-Mo")
        # EKS split cost rows of a pod on the p5 (vCPU and memory): never counted in totals.
        for res, split, unused in (("vCPU", "2.6200000000", "0.6550000000"),
                                   ("GB", "1.7500000000", "0.4375000000")):
            add(h, type="Usage", product="AmazonEC2", usage_type=f"EKS-EC2-{res}-Hours",
                operation="EKSPod-EC2", az="us-east-1a", resource=POD, amount="1.0000000000",
                rate="0.0000000000", unblended="0.0000000000", net_unblended=net("0"),
                description=f"{res} usage of pod trainer-7d9f-0", region="us-east-1",
                split_parent=P5_A, split_usage="48.0000000000" if res == "vCPU" else "512.0000000000",
                split_cost=split, split_unused=unused)
    # Second p5 starts at 01:30: half an hour, then a whole hour.
    add("01", start=t(day, "01", legacy), type="Usage", product="AmazonEC2",
        usage_type="BoxUsage:p5.48xlarge", operation="RunInstances", az="us-east-1a",
        resource=P5_B, amount="0.5000000000", rate="55.0400000000", unblended="27.5200000000",
        net_unblended=net("27.52"), description="$55.04 per On Demand Linux p5.48xlarge Instance Hour",
        instance_type="p5.48xlarge", region="us-east-1", od_rate="55.0400000000",
        od_cost="27.5200000000", term="OnDemand", unit="Hrs",
        team="research\nvision")  # a tag value with a line break, quoted
    add("02", type="Usage", product="AmazonEC2", usage_type="BoxUsage:p5.48xlarge",
        operation="RunInstances", az="us-east-1a", resource=P5_B, amount="1.0000000000",
        rate="55.0400000000", unblended="55.0400000000", net_unblended=net("55.04"),
        description="$55.04 per On Demand Linux p5.48xlarge Instance Hour",
        instance_type="p5.48xlarge", region="us-east-1", od_rate="55.0400000000",
        od_cost="55.0400000000", term="OnDemand", unit="Hrs", team="research")
    # EKS control plane of the cluster: an hourly fee on a cluster ARN.
    add("00", type="Usage", product="AmazonEKS", usage_type="USE1-AmazonEKS-Hours:perCluster",
        operation="CreateOperation", az="", amount="3.0000000000", rate="0.1000000000",
        resource="arn:aws:eks:us-east-1:111122223333:cluster/gpu-train",
        end=t(day, "03", legacy), unblended="0.3000000000", net_unblended=net("0.30"),
        description="Amazon EKS cluster usage", region="us-east-1", od_rate="0.1000000000",
        od_cost="0.3000000000", term="OnDemand", unit="Hours")
    month_start = f"{day[:8]}01"
    # Monthly RI fee: 2 p4d RIs, 1-year partial upfront: 6.58/h recurring, 6.59/h amortized
    # upfront; 3 unused RI-hours in the period so far.
    add("00", start=t(month_start, "00", legacy), end=t(day, "03", legacy), type="RIFee",
        product="AmazonEC2", usage_type="HeavyUsage:p4d.24xlarge", operation="RunInstances",
        az="", resource="", amount="1488.0000000000", rate="6.5800000000",
        unblended="9791.0400000000", net_unblended=net("9791.04"),
        description="USD 6.58 hourly fee per Linux/UNIX (Amazon VPC), p4d.24xlarge instance",
        instance_type="p4d.24xlarge", region="us-east-1", term="Reserved", unit="Hrs",
        ri_arn=RI_ARN, ri_amortized_upfront="9805.9200000000", ri_unused_upfront="19.7700000000",
        ri_net_unused_upfront=net("19.77"), ri_unused_recurring="19.7400000000",
        ri_net_unused_recurring=net("19.74"))
    # The RIs' upfront payment, billed this month (amortized into reservation/EffectiveCost).
    add("00", start=t(month_start, "00", legacy), end=t(day, "03", legacy), type="Fee",
        product="AmazonEC2", usage_type="HeavyUsage:p4d.24xlarge", operation="RunInstances",
        az="", resource="", amount="2.0000000000", rate="57728.0000000000",
        unblended="115456.0000000000", net_unblended=net("115456.00"),
        description="Sign up charge for subscription: 987654321, planId: 4321", ri_arn=RI_ARN,
        term="Reserved")
    # Tax and a credit: not tied to any instance.
    add("00", start=t(month_start, "00", legacy), end=t(day, "03", legacy), type="Tax",
        product="AmazonEC2", usage_type="", operation="", az="", resource="", amount="1.0000000000",
        rate="", unblended="12.3400000000", net_unblended=net("12.34"),
        description="Tax for product code AmazonEC2")
    add("00", start=t(month_start, "00", legacy), end=t(day, "03", legacy), type="Credit",
        product="AmazonEC2", usage_type="", operation="", az="", resource="", amount="0.0000000000",
        rate="", unblended="-50.0000000000", net_unblended=net("-50.00"),
        description="AWS Credit, \"Research Credits\" program")
    if not legacy:
        # EDP discount: negative gross amount, already inside the net columns (net 0).
        add("00", start=t(month_start, "00", legacy), end=t(day, "03", legacy), type="EdpDiscount",
            product="AmazonEC2", usage_type="", operation="", az="", resource="",
            amount="0.0000000000", rate="", unblended="-8.7500000000", net_unblended="0.0000000000",
            description="Enterprise Program Discount")
    return out


def write(path, day, legacy, bom=False, crlf=False):
    cols = [c[0] if legacy else c[1] for c in COLUMNS]
    keep = [i for i, c in enumerate(cols) if c is not None]

    def quote(v):
        if any(ch in v for ch in ',"\n\r'):
            return '"' + v.replace('"', '""') + '"'
        return v

    eol = "\r\n" if crlf else "\n"
    lines = [",".join(cols[i] for i in keep)]
    for n, r in enumerate(rows(day, legacy)):
        vals = [""] * len(COLUMNS)
        vals[0] = f"{'ab' if legacy else 'cd'}{n:06x}e1f2a3b4c5d6e7f8091a2b3c4d5e6f70"
        vals[1] = f"{r['start']}/{r['end']}"
        vals[2], vals[3], vals[4], vals[5] = "1234567890", "AWS", "Anniversary", ACCOUNT
        vals[6] = t(f"{day[:8]}01", "00", legacy)
        vals[7] = t(f"{day[:5]}{int(day[5:7]) + 1:02d}-01", "00", legacy)
        vals[8], vals[18] = ACCOUNT, "USD"
        vals[23], vals[24] = "Amazon Web Services, Inc.", "Amazon Elastic Compute Cloud"
        for k, v in r.items():
            if k == "region" and not legacy:
                vals[27] = v
                continue
            if k == "team":
                if legacy:
                    vals[53] = v
                else:
                    vals[54] = '{"user_team":"%s"}' % v.replace("\n", "\\n")
                continue
            vals[KEY[k]] = v
        lines.append(",".join(quote(vals[i]) for i in keep))
    data = (("\ufeff" if bom else "") + eol.join(lines) + eol).encode()
    if path.endswith(".gz"):
        with open(path, "wb") as f:
            f.write(gzip.compress(data, compresslevel=9, mtime=0))
    else:
        with open(path, "wb") as f:
            f.write(data)


if __name__ == "__main__":
    write(os.path.join(HERE, "legacy_cur.csv"), "2026-10-01", legacy=True)
    write(os.path.join(HERE, "cur2.csv"), "2026-11-01", legacy=False)
    write(os.path.join(HERE, "cur2.csv.gz"), "2026-11-01", legacy=False, bom=True, crlf=True)
