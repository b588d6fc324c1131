import sys

if sys.argv[1:2] == ["deploy"]:
    from .deploy import main as deploy_main

    sys.exit(deploy_main(sys.argv[2:]))

from .app import main

main()
