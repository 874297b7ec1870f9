# Two network hosts on one machine, for multi-node tests and benchmarks (sourced): namespaces
# $NS0 and $NS1 joined by a veth pair ($VETH0 and $VETH1) with addresses $ADDR0 and $ADDR1.
# hosts_up returns 1 where namespaces cannot be made (not root, no CAP_NET_ADMIN), 2 when the
# link between them cannot be set up; hosts_down
# kills what still runs in them and removes them (call it from the caller's EXIT trap).
NS0=lathe$$n0
NS1=lathe$$n1
VETH0=lv$$a
VETH1=lv$$b
ADDR0=10.213.77.1
ADDR1=10.213.77.2

hosts_up() {
    ip netns add $NS0 2>/dev/null || return 1
    {
        ip netns add $NS1 &&
            ip link add $VETH0 netns $NS0 type veth peer name $VETH1 netns $NS1 &&
            ip -n $NS0 addr add $ADDR0/24 dev $VETH0 &&
            ip -n $NS1 addr add $ADDR1/24 dev $VETH1 &&
            ip -n $NS0 link set lo up && ip -n $NS1 link set lo up &&
            ip -n $NS0 link set $VETH0 up && ip -n $NS1 link set $VETH1 up
    } || return 2
}

hosts_down() {
    local ns pid
    for ns in $NS0 $NS1; do
        for pid in $(ip netns pids $ns 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
        ip netns del $ns 2>/dev/null || true
    done
}
